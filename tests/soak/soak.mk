# The soak test (tests/soak/soak.c): many runs in one sandbox and many live
# sandboxes from two threads, with memory watched. The short version is
# $(TEST_BIN)/test_soak, run by `make test` with the other test_* programs;
# `make soak` runs the full version. Included from tests/tests.mk.

$(TEST_BIN)/test_soak: tests/soak/soak.c tests/unit/test.h include/capsa.h $(BUILD)/libcapsa.a
	@mkdir -p $(TEST_BIN)
	$(CC) $(TEST_CFLAGS) $< -o $@ $(BUILD)/libcapsa.a $(HOST_LIBS)

test-build: $(TEST_BIN)/test_soak

.PHONY: soak
soak: deps
	@$(MAKE) --no-print-directory test-build
	$(TEST_BIN)/test_soak --full
