# Fuzzing: one libFuzzer harness per untrusted input (fuzz/fuzz_*.c), built with
# clang against the host compiled for coverage and ASan/UBSan, in $(BUILD)-fuzz.
#   make fuzz-replay              run every harness over its corpus (CI does)
#   make fuzz FUZZ_SECONDS=300    fuzz each harness that long, growing the corpus
# Included from the Makefile.

FUZZ_CC      ?= clang-14
FUZZ_BUILD   := $(BUILD)-fuzz
FUZZ_NAMES   := script wasi vfs tar policy toolcall tooldef shell schema mcp restore mcp_client \
	serve_path serve_record
FUZZ_SECONDS ?= 60
FUZZ_LINK    := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined

.PHONY: fuzz-build fuzz-replay fuzz
# The guest is the normal build's (GUEST_FROM, as in test-sanitize): made first.
fuzz-build: deps
	@$(MAKE) --no-print-directory $(GUEST_OBJ)
	@$(MAKE) --no-print-directory CC=$(FUZZ_CC) SANITIZE=fuzz BUILD=$(FUZZ_BUILD) GUEST_FROM=$(BUILD) \
		$(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz/fuzz_%)

# Built inside the fuzz build (BUILD=$(FUZZ_BUILD)), by fuzz-build.
$(BUILD)/fuzz/fuzz_%: fuzz/fuzz_%.c $(BUILD)/libcapsa.a
	@mkdir -p $(BUILD)/fuzz
	$(CC) -std=gnu11 -O1 -g $(WARN) $(FUZZ_LINK) -Iinclude -Isrc -I$(GEN) $< $(BUILD)/libcapsa.a \
		-ljansson -lzstd -lpthread -lm -o $@

# The MCP harnesses (the server's dispatcher, what the client reads) link net/
# (libcapsa-net.a) too.
$(BUILD)/fuzz/fuzz_mcp_client: fuzz/fuzz_mcp_client.c net/mcp_client.h $(BUILD)/libcapsa-net.a $(BUILD)/libcapsa.a
	@mkdir -p $(BUILD)/fuzz
	$(CC) -std=gnu11 -O1 -g $(WARN) $(FUZZ_LINK) -Iinclude $< $(BUILD)/libcapsa-net.a \
		$(BUILD)/libcapsa.a $(NET_LIBS) -lzstd -lm -o $@
$(BUILD)/fuzz/fuzz_mcp: fuzz/fuzz_mcp.c $(BUILD)/libcapsa-net.a $(BUILD)/libcapsa.a
	@mkdir -p $(BUILD)/fuzz
	$(CC) -std=gnu11 -O1 -g $(WARN) $(FUZZ_LINK) -Iinclude $< $(BUILD)/libcapsa-net.a \
		$(BUILD)/libcapsa.a $(NET_LIBS) -lzstd -lm -o $@

# The serve harnesses (a files/ path and query counts; a stored session record
# and request bodies) need only serve's parsers (net/serve_parse.c), built into
# them (and the JSON writer they use, src/json_write.c) with the harness's
# instrumentation.
SERVE_PARSE := net/serve_parse.c src/json_write.c
$(BUILD)/fuzz/fuzz_serve_path: fuzz/fuzz_serve_path.c $(SERVE_PARSE) net/serve_parse.h src/json_write.h
	@mkdir -p $(BUILD)/fuzz
	$(CC) -std=gnu11 -O1 -g $(WARN) $(FUZZ_LINK) -Iinclude $< $(SERVE_PARSE) -ljansson -o $@
$(BUILD)/fuzz/fuzz_serve_record: fuzz/fuzz_serve_record.c $(SERVE_PARSE) net/serve_parse.h src/json_write.h
	@mkdir -p $(BUILD)/fuzz
	$(CC) -std=gnu11 -O1 -g $(WARN) $(FUZZ_LINK) -Iinclude $< $(SERVE_PARSE) -ljansson -o $@

# ASan leaves SIGSEGV to the runtime (guard pages), as in test-sanitize.
FUZZ_ENV := ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1:use_sigaltstack=0

# The scripts of the JavaScript test suites are seeds of the script harness too,
# and the shell's comparison cases (each file a script) of the shell harness.
FUZZ_SEEDS_script := $(wildcard tests/js/*/*.js)
FUZZ_SEEDS_shell := $(wildcard tests/shell/compare/*.txt)

fuzz-replay: fuzz-build
	@for n in $(FUZZ_NAMES); do \
		case $$n in script) extra="$(FUZZ_SEEDS_script)";; shell) extra="$(FUZZ_SEEDS_shell)";; \
			*) extra="";; esac; \
		echo "fuzz-replay: $$n"; \
		$(FUZZ_ENV) $(FUZZ_BUILD)/fuzz/fuzz_$$n fuzz/corpus/$$n/* $$extra -rss_limit_mb=4096 2>&1 \
			| grep -E "Executed|ERROR|SUMMARY" | tail -n 3 || exit 1; \
		$(FUZZ_ENV) $(FUZZ_BUILD)/fuzz/fuzz_$$n fuzz/corpus/$$n/* $$extra >/dev/null 2>&1 || exit 1; \
		echo "fuzz-replay: $$n: every input ran"; \
	done

fuzz: fuzz-build
	@for n in $(FUZZ_NAMES); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$n && \
		$(FUZZ_ENV) $(FUZZ_BUILD)/fuzz/fuzz_$$n $(FUZZ_BUILD)/corpus/$$n fuzz/corpus/$$n \
			$$(case $$n in script) echo tests/js/*;; shell) echo tests/shell/compare;; esac) \
			-max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 -timeout=10 || exit 1; \
	done
