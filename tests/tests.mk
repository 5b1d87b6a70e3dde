# Tests: `make test` builds everything and runs tests/run.sh, which runs every suite
# and ends with the total "N passed, N failed". Included from the Makefile.

TEST_BIN    := $(BUILD)/tests
TEST_CFLAGS := -std=gnu11 -O1 -g -pthread $(WARN) $(SAN_FLAGS) -Iinclude -Itests/unit
UNIT_TESTS  := test_api test_vfs test_fs test_json test_policy test_tools test_schema test_checkpoint test_sqlite

$(TEST_BIN)/%: tests/unit/%.c tests/unit/test.h $(BUILD)/libcapsa.a
	@mkdir -p $(TEST_BIN)
	$(CC) $(TEST_CFLAGS) $< -o $@ $(BUILD)/libcapsa.a $(HOST_LIBS)

# The MCP client's C API (include/capsa_net.h), linked with libcapsa-net too.
$(TEST_BIN)/test_mcp_client: tests/unit/test_mcp_client.c tests/unit/test.h include/capsa_net.h \
		$(BUILD)/libcapsa-net.a $(BUILD)/libcapsa.a
	@mkdir -p $(TEST_BIN)
	$(CC) $(TEST_CFLAGS) $< -o $@ $(BUILD)/libcapsa-net.a $(BUILD)/libcapsa.a $(NET_LIBS) $(HOST_LIBS)

# The ready image (src/instance.c): internal functions, so the library's headers too.
$(TEST_BIN)/test_image: tests/unit/test_image.c tests/unit/test.h src/instance.h $(BUILD)/libcapsa.a
	@mkdir -p $(TEST_BIN)
	$(CC) $(TEST_CFLAGS) -Isrc -Iguest -I$(GEN) $< -o $@ $(BUILD)/libcapsa.a $(HOST_LIBS)

# The session store (net/store.h) of `capsa serve`, in libcapsa-net.
$(TEST_BIN)/test_store: tests/unit/test_store.c tests/unit/test.h net/store.h $(BUILD)/libcapsa-net.a
	@mkdir -p $(TEST_BIN)
	$(CC) $(TEST_CFLAGS) $< -o $@ $(BUILD)/libcapsa-net.a $(NET_LIBS)

# The JSON-Schema-Test-Suite's driver (tests/schema/run.sh runs it).
$(TEST_BIN)/schema_suite: tests/schema/suite.c $(BUILD)/libcapsa.a
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
-include tests/adversarial/adversarial.mk
-include tests/soak/soak.mk
-include tests/wasi/wasi.mk

TEST_PROGRAMS = $(UNIT_TESTS:%=$(TEST_BIN)/%) $(TEST_BIN)/dtoa_ref $(TEST_BIN)/dtoa_exact \
	$(TEST_BIN)/schema_suite $(TEST_BIN)/test_mcp_client $(TEST_BIN)/test_store $(TEST_BIN)/test_image
-include tests/shell/shell.mk

.PHONY: test test-build
test-build: all $(TEST_PROGRAMS)

test: deps
	@$(MAKE) --no-print-directory test-build
	@BUILD=$(BUILD) sh tests/run.sh

# The cluster test of `capsa serve` (tests/scale): Redis, haproxy and 3 replicas
# on loopback. A target of its own, after `make test` in CI (.ci/run).
.PHONY: test-scale
test-scale: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) sh tests/scale/scale.sh

# The same suites with the host built under ASan and UBSan (SANITIZE=1), in a
# build directory of its own. The runtime handles SIGSEGV itself (guard pages):
# ASan must leave that signal alone.
# ASan's own alternate signal stacks are off (the runtime gives each thread one,
# and tests replace them). Its reports go to log files, not stderr: ASan warns
# about swapcontext once per process, which would break every golden stderr; the
# logs are checked for errors after the run instead.
SAN_LOGS := $(BUILD)-san/sanitizer-logs
SAN_ENV := ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1:use_sigaltstack=0:detect_leaks=1:log_path=$(abspath $(SAN_LOGS))/asan \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$(abspath $(SAN_LOGS))/ubsan \
	CAPSA_TEST_SANITIZED=1
# The guest is the normal build's (GUEST_FROM): made first, then shared; the suites
# get GUEST_FROM too, for the third-party sources they compile (tests/sqlite/statics.sh).
test-sanitize: deps
	@$(MAKE) --no-print-directory $(GUEST_OBJ)
	@$(MAKE) --no-print-directory SANITIZE=1 BUILD=$(BUILD)-san GUEST_FROM=$(BUILD) test-build
	@rm -rf $(SAN_LOGS) && mkdir -p $(SAN_LOGS)
	@$(SAN_ENV) BUILD=$(BUILD)-san GUEST_FROM=$(BUILD) sh tests/run.sh; status=$$?; \
	if grep -l -E "ERROR|runtime error" $(SAN_LOGS)/* 2>/dev/null; then \
		cat $$(grep -l -E "ERROR|runtime error" $(SAN_LOGS)/*); echo "sanitizers: errors reported"; exit 1; \
	fi; echo "sanitizers: no errors reported"; exit $$status

# The libraries a program linked with $(BUILD)/libcapsa.a needs: tests/docs compiles the
# documentation's C examples with them.
.PHONY: print-host-libs
print-host-libs:
	@echo $(HOST_LIBS)
