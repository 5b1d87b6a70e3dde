# Benchmark: `make bench` times capsa against QuickJS built natively from the same
# sources and -D flags as the guest, in the same run, and prints the ratios (table
# on stdout, figures in $(BUILD)/bench.json). Included from the Makefile.

BENCH_BIN     := $(BUILD)/bench
BENCH_SCRIPTS := $(sort $(wildcard bench/scripts/*.js))
# Samples per figure (medians), unmeasured runs before them, sandbox cycles for the
# latency, and rounds (each series is measured that many times, native and capsa
# alternating; the best round counts). Override on the command line for a quicker
# or a steadier run: make bench BENCH_REPS=5 BENCH_ROUNDS=1.
BENCH_REPS    ?= 9
BENCH_WARMUP  ?= 2
BENCH_CYCLES  ?= 1000
BENCH_ROUNDS  ?= 2

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

$(BENCH_BIN)/capsa_bench: bench/capsa_bench.c bench/bench.h $(BUILD)/libcapsa.a
	@mkdir -p $(BENCH_BIN)
	$(CC) $(BENCH_CFLAGS) bench/capsa_bench.c -o $@ $(BUILD)/libcapsa.a $(HOST_LIBS)

.PHONY: bench-build
bench-build: all $(BENCH_BIN)/native_qjs $(BENCH_BIN)/capsa_bench

bench: bench-build
	@BENCH_BIN=$(BENCH_BIN) BENCH_JSON=$(BUILD)/bench.json BENCH_REPS=$(BENCH_REPS) \
		BENCH_WARMUP=$(BENCH_WARMUP) BENCH_CYCLES=$(BENCH_CYCLES) BENCH_ROUNDS=$(BENCH_ROUNDS) \
		BENCH_RUNTIME_JS=$(RUNTIME_JS) sh bench/bench.sh $(BENCH_SCRIPTS)
