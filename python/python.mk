# The Python package (python/capsa, ctypes over libcapsa.so). Included from the Makefile.
#   make python           copy $(BUILD)/libcapsa.so and libcapsa-net.so (for
#                         mcp_servers) into the package (python/capsa/)
#   make python-install   and install the package with pip (offline, no build isolation)
#   make python-test      run the Python suite (tests/python/run.sh) against $(BUILD)

PYTHON ?= python3

.PHONY: python python-install python-test
python: $(BUILD)/libcapsa.so $(BUILD)/libcapsa-net.so
	cp $(BUILD)/libcapsa.so python/capsa/libcapsa.so
	cp $(BUILD)/libcapsa-net.so python/capsa/libcapsa-net.so

python-install: python
	$(PYTHON) -m pip install --no-index --no-build-isolation ./python

python-test: $(BUILD)/libcapsa.so $(BUILD)/libcapsa-net.so
	@BUILD=$(BUILD) sh tests/python/run.sh
