# The Python package (python/capsa, ctypes over libcapsa.so). Included from the Makefile.
#   make python           copy $(BUILD)/libcapsa.so and libcapsa-net.so (for
#                         mcp_servers; SHARED_LIBS in pkg/pkg.mk) into the package
#                         (python/capsa/), by a rename over the old copy
#                         (pkg/install-file.sh): a process that has the old one
#                         loaded keeps it intact
#   make python-install   and install the package with pip (offline, no build isolation)
#   make python-test      run the Python suite (tests/python/run.sh) against $(BUILD)

PYTHON ?= python3

.PHONY: python python-install python-test
python: $(BUILD)/libcapsa.so $(BUILD)/libcapsa-net.so
	@set -e; for lib in $(SHARED_LIBS); do \
	    echo "sh pkg/install-file.sh 755 $(BUILD)/$$lib.so python/capsa/$$lib.so"; \
	    sh pkg/install-file.sh 755 $(BUILD)/$$lib.so python/capsa/$$lib.so; \
	done

python-install: python
	$(PYTHON) -m pip install --no-index --no-build-isolation ./python

python-test: $(BUILD)/libcapsa.so $(BUILD)/libcapsa-net.so
	@BUILD=$(BUILD) sh tests/python/run.sh
