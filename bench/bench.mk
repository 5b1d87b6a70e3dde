# Benchmark: `make bench` times capsa against QuickJS built natively from the same
# sources and -D flags as the guest, against the same guest C without its fuel
# metering, and against peers (Node.js's vm module, quickjs-emscripten, isolated-vm), all in the
# same run, and prints the ratios (table on stdout, figures in $(BUILD)/bench.json,
# a bar chart in $(BUILD)/bench.png). `make bench-quick` does the same with fewer
# repetitions. Included from the Makefile.

BENCH_BIN     := $(BUILD)/bench
BENCH_SCRIPTS := $(sort $(wildcard bench/scripts/*.js))
# Samples per figure (medians), unmeasured runs before them, sandbox cycles for the
# latency, rounds (each series is measured that many times, the engines
# alternating; the best round counts), sandboxes kept alive at once for the memory
# figures, and processes per whole-process figure. Override on the command line
# for a quicker or a steadier run: make bench BENCH_REPS=9 BENCH_WARMUP=2.
# The agent-like scripts (10 MB of JSON, 5 MB of text, 100,000 objects) take about
# 0.7 s a run in each QuickJS engine: 3 samples after 1 warm-up run, in each of 2
# rounds, keep make bench under 5 minutes on a machine partly busy.
BENCH_REPS    ?= 3
BENCH_WARMUP  ?= 1
BENCH_CYCLES  ?= 1000
BENCH_ROUNDS  ?= 2
BENCH_SANDBOXES ?= 10000
BENCH_PROCESS_RUNS ?= 20
# In-process times: cpu (the process's CPU time, so that the other work of a busy
# machine does not count) or wall. Whole processes are always timed on the wall.
BENCH_CLOCK   ?= cpu

# The guest's QuickJS flags, for the native reference; -O2 as the generated C gets.
BENCH_QJS_CFLAGS := -O2 -D_GNU_SOURCE -DCONFIG_VERSION='"2021-03-27"' -DCONFIG_BIGNUM \
	-isystem $(QJS) -w
BENCH_CFLAGS  := -std=gnu11 -O2 -g -pthread $(WARN) -Iinclude -Ibench

$(BENCH_BIN)/qjs-%.o: $(QJS)/.stamp
	@mkdir -p $(BENCH_BIN)
	$(CC) $(BENCH_QJS_CFLAGS) -c $(QJS)/$*.c -o $@

$(BENCH_BIN)/native_qjs: bench/native_qjs.c bench/bench.h $(QJS_SRCS:%=$(BENCH_BIN)/qjs-%.o)
	$(CC) $(BENCH_CFLAGS) -D_GNU_SOURCE -isystem $(QJS) bench/native_qjs.c \
		$(QJS_SRCS:%=$(BENCH_BIN)/qjs-%.o) -o $@ -lm -lpthread

# The reference of the sqlite rows: the guest's SQLite (its compile options, less the
# WASI-only ones) compiled natively, driven by bench/sqlite_native.c.
BENCH_SQLITE_CFLAGS := -O2 -w $(filter-out -D_WASI% -DSQLITE_EXTRA_INIT%,$(SQLITE_CFLAGS))

$(BENCH_BIN)/sqlite3.o: $(SQLITE)/.stamp
	@mkdir -p $(BENCH_BIN)
	$(CC) $(BENCH_SQLITE_CFLAGS) -c $(SQLITE)/sqlite3.c -o $@

$(BENCH_BIN)/sqlite_native: bench/sqlite_native.c bench/bench.h $(BENCH_BIN)/sqlite3.o
	$(CC) $(BENCH_CFLAGS) -isystem $(SQLITE) bench/sqlite_native.c $(BENCH_BIN)/sqlite3.o -o $@ -lm

$(BENCH_BIN)/capsa_bench: bench/capsa_bench.c bench/bench.h $(BUILD)/libcapsa.a
	@mkdir -p $(BENCH_BIN)
	$(CC) $(BENCH_CFLAGS) bench/capsa_bench.c -o $@ $(BUILD)/libcapsa.a $(HOST_LIBS)

# The cost of time and fuel enforcement: the same generated guest C with its
# metering points removed, compiled as guest-module.o is (profile-guided too, with
# a training run of its own), and linked with the same host objects into a second
# capsa_bench. Its runs cannot time out or run out of fuel: it exists only to be
# compared with.
BENCH_UNMETERED := $(BENCH_BIN)/unmetered

$(BENCH_UNMETERED)/guest.c: $(GEN)/guest.c
	@mkdir -p $(BENCH_UNMETERED)
	sed -e 's/ *CAPSA_FUEL(instance);//g' $< > $@.tmp
	@if grep -q 'CAPSA_FUEL(' $@.tmp; then echo "bench: metering left in $@" >&2; exit 1; fi
	@mv $@.tmp $@

$(BENCH_UNMETERED)/guest-module.o: $(BENCH_UNMETERED)/guest.c src/fuel.h tools/pgo-train.sh | \
		$(HOST_SRCS:%=$(OBJ)/%.o) $(OBJ)/ready_none.o $(CLI_OBJS) $(BUILD)/libcapsa-net.a
	$(call guest_cc,$<,$@)

$(BENCH_UNMETERED)/capsa_bench: bench/capsa_bench.c bench/bench.h $(HOST_SRCS:%=$(OBJ)/%.o) \
		$(OBJ)/ready_none.o $(BENCH_UNMETERED)/guest-module.o
	$(CC) $(BENCH_CFLAGS) bench/capsa_bench.c -o $@ $(HOST_SRCS:%=$(OBJ)/%.o) \
		$(OBJ)/ready_none.o $(BENCH_UNMETERED)/guest-module.o $(HOST_LIBS)

.PHONY: bench-build bench-deps bench-quick bench-mcp bench-serve
bench-build: all $(BENCH_BIN)/native_qjs $(BENCH_BIN)/capsa_bench $(BENCH_UNMETERED)/capsa_bench \
	$(BENCH_BIN)/sqlite_native

# gnuplot for the chart and the peers' pinned npm packages; never fatal (the rows
# of what is missing say "unavailable", and the chart is skipped).
bench-deps:
	@sh bench/deps.sh $(BENCH_BIN)
	@sh tests/mcp/deps.sh $(BUILD)/mcp-node || echo "bench: no MCP SDK: the MCP rows will fail" >&2
	@sh tests/mcp_client/deps.sh $(BUILD)/mcp-client-node || \
		echo "bench: no MCP servers: the MCP client row is left out" >&2

# The MCP rows (bench/mcp.sh): calls and sessions against a server made with the
# same SDK in Node.js, and an upstream MCP tool called from a sandbox against the
# SDK's own call of it.
BENCH_MCP_CALLS ?= 1000
BENCH_MCP_SESSIONS ?= 100
BENCH_MCP_RUN = @BENCH_CAPSA=$(BUILD)/capsa BENCH_MCP_NODE=$(BUILD)/mcp-node \
	BENCH_MCP_JSON=$(BUILD)/bench-mcp.json BENCH_MCP_CALLS=$(BENCH_MCP_CALLS) \
	BENCH_MCP_SESSIONS=$(BENCH_MCP_SESSIONS) sh bench/mcp.sh

# The capsa serve rows (bench/serve.sh): one replica over a redis-server of its
# own and over a dir: store, timed over HTTP.
BENCH_SERVE_REQUESTS ?= 1000
BENCH_SERVE_RUN = @BENCH_CAPSA=$(BUILD)/capsa BENCH_SERVE_JSON=$(BUILD)/bench-serve.json \
	BENCH_SERVE_REQUESTS=$(BENCH_SERVE_REQUESTS) sh bench/serve.sh

# The SQLite rows' scripts: node:sqlite's and better-sqlite3's.
BENCH_SQLITE_SCRIPTS := bench/sqlite/insert_group.js bench/sqlite/better_insert_group.js

BENCH_RUN = @BENCH_BIN=$(BENCH_BIN) BENCH_UNMETERED=$(BENCH_UNMETERED)/capsa_bench \
	BENCH_CAPSA=$(BUILD)/capsa BENCH_JSON=$(BUILD)/bench.json BENCH_REPS=$(BENCH_REPS) \
	BENCH_WARMUP=$(BENCH_WARMUP) BENCH_CYCLES=$(BENCH_CYCLES) BENCH_ROUNDS=$(BENCH_ROUNDS) \
	BENCH_SANDBOXES=$(BENCH_SANDBOXES) BENCH_PROCESS_RUNS=$(BENCH_PROCESS_RUNS) \
	BENCH_NODE_MODULES=$(BENCH_BIN)/node_modules BENCH_CLOCK=$(BENCH_CLOCK) \
	BENCH_RUNTIME_JS=guest/runtime.js BENCH_INTL_JS=guest/intl.js \
	BENCH_TOOL_SCRIPT=bench/tool_calls.js BENCH_SQLITE_SCRIPTS='$(BENCH_SQLITE_SCRIPTS)' \
	sh bench/bench.sh $(BENCH_SCRIPTS) && sh bench/plot.sh $(BUILD)/bench.json $(BUILD)/bench.png

bench: bench-build bench-deps
	$(BENCH_RUN)
	$(BENCH_MCP_RUN)
	$(BENCH_SERVE_RUN)

# The same table with fewer repetitions: under a minute once everything is built
# (the first run builds the unmetered guest, profile-guided: minutes). One sample of
# each script, without a warm-up run (the V8 peers' compute rows then include their
# JIT's warm-up), so its compute ratios are a check, not figures to quote. Fewer than
# 10,000 sandboxes, so that target is left to make bench.
bench-quick: BENCH_REPS := 1
bench-quick: BENCH_WARMUP := 0
bench-quick: BENCH_CYCLES := 200
bench-quick: BENCH_ROUNDS := 1
bench-quick: BENCH_SANDBOXES := 1000
bench-quick: BENCH_PROCESS_RUNS := 5
bench-quick: BENCH_MCP_CALLS := 200
bench-quick: BENCH_SERVE_REQUESTS := 200
bench-quick: bench-build bench-deps
	$(BENCH_RUN)
	$(BENCH_MCP_RUN)
	$(BENCH_SERVE_RUN)

# The MCP rows alone.
bench-mcp: all bench-deps
	$(BENCH_MCP_RUN)

# The capsa serve rows alone.
bench-serve: all
	$(BENCH_SERVE_RUN)
