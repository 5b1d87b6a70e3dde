# The WASI conformance suite (WebAssembly/wasi-testsuite, prebuilt wasm32-wasip1
# programs under $(CONFORMANCE)/wasi-testsuite/{c,assemblyscript,rust}) run on
# capsa's WASI host: each NAME.wasm is turned into C by wasm2c, metered by
# tools/instrument.sh (so a test that never ends is stopped by the deadline),
# compiled, and linked with tests/wasi/runner.c and a per-module shim into
# $(WASI_BIN)/SET/NAME; tests/wasi/run.sh runs them all. Also the unit test of
# the WASI host's handling of bad guest input, $(TEST_BIN)/test_wasi_bad.
# Included from tests/tests.mk.

CONFORMANCE ?= ../shared/conformance
export CONFORMANCE
WASI_SUITE := $(CONFORMANCE)/wasi-testsuite
WASI_SETS  := c assemblyscript rust
WASI_OUT   := $(TEST_BIN)/wasi
WASI_BIN   := $(WASI_OUT)/bin
# The library the runners link; overridable to try a host built elsewhere.
WASI_LIB   ?= $(BUILD)/libcapsa.a
# Generated C: warnings off, no -Werror. -O0: measured on the 72 modules with 2
# cores, -O0 takes 45 s of CPU (25 s wall), -O1 78 s (about 40 s wall), and the
# whole suite then runs in under a second either way.
WASI_GEN_CFLAGS := -O0 -w -DNDEBUG -Isrc
WASI_CFLAGS := $(TEST_CFLAGS) -Isrc -Itests/wasi

# SET/NAME of every test program present (none when the data is missing:
# run.sh then fails and says so).
WASI_TESTS := $(foreach s,$(WASI_SETS),$(patsubst $(WASI_SUITE)/$(s)/%.wasm,$(s)/%,\
	$(wildcard $(WASI_SUITE)/$(s)/*.wasm)))
WASI_PROGRAMS := $(WASI_TESTS:%=$(WASI_BIN)/%)

# The wasm2c module name of SET/NAME: w_SET_NAME with '-' as '_' (unique, and
# left as it is by wasm2c's name mangling).
wasi_mod = w_$(subst -,_,$(subst /,_,$(1)))

.SECONDARY: $(WASI_TESTS:%=$(WASI_OUT)/gen/%.c) $(WASI_TESTS:%=$(WASI_OUT)/gen/%.h) \
	$(WASI_TESTS:%=$(WASI_OUT)/obj/%.o) $(WASI_TESTS:%=$(WASI_OUT)/obj/%-shim.o)

$(WASI_OUT)/gen/%.c: $(WASI_SUITE)/%.wasm tools/instrument.sh
	@mkdir -p $(dir $@)
	@$(WASM2C) -n $(call wasi_mod,$*) $< -o $(WASI_OUT)/gen/$*-raw.c 2>$(WASI_OUT)/gen/$*.log || \
		{ cat $(WASI_OUT)/gen/$*.log; exit 1; }
	@sh tools/instrument.sh $(WASI_OUT)/gen/$*-raw.c $(WASI_OUT)/gen/$*-raw.h $@ \
		$(WASI_OUT)/gen/$*.h >/dev/null
	@rm -f $(WASI_OUT)/gen/$*-raw.c $(WASI_OUT)/gen/$*-raw.h

$(WASI_OUT)/gen/%.h: $(WASI_OUT)/gen/%.c
	@:

$(WASI_OUT)/obj/%.o: $(WASI_OUT)/gen/%.c src/fuel.h
	@mkdir -p $(dir $@)
	@echo "CC wasi-testsuite/$*"
	@$(CC) $(WASI_GEN_CFLAGS) -I$(dir $<) -c $< -o $@

$(WASI_OUT)/obj/%-shim.o: tests/wasi/shim.c tests/wasi/runner.h src/wasi.h src/vfs.h \
		$(WASI_OUT)/gen/%.h
	@mkdir -p $(dir $@)
	@$(CC) $(WASI_CFLAGS) -DWASI_MODULE=$(call wasi_mod,$*) -include $(WASI_OUT)/gen/$*.h \
		-c $< -o $@

$(WASI_OUT)/runner.o: tests/wasi/runner.c tests/wasi/runner.h src/wasi.h src/vfs.h src/vfs_host.h src/rt.h \
		src/buf.h
	@mkdir -p $(dir $@)
	$(CC) $(WASI_CFLAGS) -c $< -o $@

$(WASI_BIN)/%: $(WASI_OUT)/obj/%.o $(WASI_OUT)/obj/%-shim.o $(WASI_OUT)/runner.o $(WASI_LIB)
	@mkdir -p $(dir $@)
	@$(CC) -pthread -o $@ $^ $(HOST_LIBS)

$(TEST_BIN)/test_wasi_bad: tests/wasi/test_wasi_bad.c tests/unit/test.h src/wasi.h src/vfs.h \
		src/rt.h $(WASI_LIB)
	@mkdir -p $(TEST_BIN)
	$(CC) $(WASI_CFLAGS) $< -o $@ $(WASI_LIB) $(HOST_LIBS)

.PHONY: wasi-conformance
wasi-conformance: $(WASI_PROGRAMS) $(TEST_BIN)/test_wasi_bad

# TEST_PROGRAMS is assigned after this file is included, so the programs are
# added to test-build directly.
test-build: wasi-conformance
