# Tests: `make test` builds everything and runs tests/run.sh, which runs every suite
# and ends with the total "N passed, N failed". Included from the Makefile.

TEST_BIN    := $(BUILD)/tests
TEST_CFLAGS := -std=gnu11 -O1 -g -pthread $(WARN) -Iinclude -Itests/unit
UNIT_TESTS  := test_api

$(TEST_BIN)/%: tests/unit/%.c tests/unit/test.h $(BUILD)/libcapsa.a
	@mkdir -p $(TEST_BIN)
	$(CC) $(TEST_CFLAGS) $< -o $@ $(BUILD)/libcapsa.a $(HOST_LIBS)

# The dtoa differential test: native QuickJS with and without the exact-ties code.
DTOA_SRCS := $(QJS_SRCS:%=$(QJS)/%.c)
DTOA_CFLAGS := -O2 -D_GNU_SOURCE -DCONFIG_VERSION='"2021-03-27"' -DCONFIG_BIGNUM -isystem $(QJS) -w
$(TEST_BIN)/dtoa_ref: tests/dtoa/dtoa_diff.c $(QJS)/.stamp
	@mkdir -p $(TEST_BIN)
	$(CC) $(DTOA_CFLAGS) $< $(DTOA_SRCS) -o $@ -lm -lpthread
$(TEST_BIN)/dtoa_exact: tests/dtoa/dtoa_diff.c $(QJS)/.stamp
	@mkdir -p $(TEST_BIN)
	$(CC) $(DTOA_CFLAGS) -DCONFIG_EXACT_DTOA_TIES $< $(DTOA_SRCS) -o $@ -lm -lpthread

-include tests/rt/rt.mk

TEST_PROGRAMS = $(UNIT_TESTS:%=$(TEST_BIN)/%) $(TEST_BIN)/dtoa_ref $(TEST_BIN)/dtoa_exact

.PHONY: test test-build
test-build: all $(TEST_PROGRAMS)

test: deps
	@$(MAKE) --no-print-directory test-build
	@BUILD=$(BUILD) sh tests/run.sh
