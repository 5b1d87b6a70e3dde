# The runtime layer's tests: tests/rt/trapper.wat is built to C with wat2wasm and
# wasm2c in $(BUILD)/tests/rt (generated, never committed) and linked with
# src/rt.c into $(TEST_BIN)/test_rt. Included from tests/tests.mk.

WAT2WASM   ?= wat2wasm
RT_GEN     := $(TEST_BIN)/rt
# Generated C as the guest's: optimised, warnings off, no -Werror.
RT_GEN_CFLAGS := -O2 -w -DNDEBUG -I$(RT_GEN)

# The module is named explicitly: Z_trapper_*.
$(RT_GEN)/trapper.wasm: tests/rt/trapper.wat
	@mkdir -p $(RT_GEN)
	$(WAT2WASM) $< -o $@

# Metered like the guest, so that fuel and deadlines can be tested on it.
$(RT_GEN)/trapper.c: $(RT_GEN)/trapper.wasm tools/instrument.sh
	$(WASM2C) -n trapper $< -o $(RT_GEN)/trapper-raw.c
	sh tools/instrument.sh $(RT_GEN)/trapper-raw.c $(RT_GEN)/trapper-raw.h $@ $(RT_GEN)/trapper.h

$(RT_GEN)/trapper.h: $(RT_GEN)/trapper.c

$(RT_GEN)/trapper.o: $(RT_GEN)/trapper.c src/fuel.h
	$(CC) $(RT_GEN_CFLAGS) -Isrc -c $< -o $@

# rt.o comes first so that the runtime under test is the one linked; libcapsa.a
# then supplies the rest of the public API (its own copy of rt.o is not pulled in).
$(TEST_BIN)/test_rt: tests/rt/test_rt.c tests/unit/test.h src/rt.h $(RT_GEN)/trapper.h \
		$(RT_GEN)/trapper.o $(OBJ)/rt.o $(BUILD)/libcapsa.a
	$(CC) $(TEST_CFLAGS) -Isrc -I$(RT_GEN) $< $(RT_GEN)/trapper.o $(OBJ)/rt.o \
		$(BUILD)/libcapsa.a $(HOST_LIBS) -o $@

# TEST_PROGRAMS is assigned after this file is included, so the program is added
# to test-build directly.
test-build: $(TEST_BIN)/test_rt
