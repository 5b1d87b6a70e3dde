# capsa: build the guest (QuickJS + our runtime, wasm32-wasi -> wasm2c -> C), the host
# library, the CLI, and run the tests. `make demo` and `make test` are the two commands
# of the README; both install missing Debian packages first (deps/install.sh).

BUILD      ?= build
# GUEST_FROM=DIR: the guest (its sources, wasm, generated C and compiled object) is
# the one already made in build directory DIR, and this build has no rule to make it.
# The sanitizer and fuzz builds take the normal build's (test-sanitize, fuzz-build):
# the generated C is compiled without their flags anyway (GEN_CFLAGS), so a second
# compile of it would make the same code again.
GUEST_DIR  := $(or $(GUEST_FROM),$(BUILD))
QJS        := $(GUEST_DIR)/quickjs
SQLITE     := $(GUEST_DIR)/sqlite
GEN        := $(GUEST_DIR)/gen
OBJ        := $(BUILD)/obj
GOBJ       := $(GUEST_DIR)/guest-obj
GUEST_OBJ  := $(GUEST_DIR)/obj/guest-module.o

CC         ?= gcc
WASM_CC    ?= clang-14
WASM2C     ?= wasm2c
CLANG_RES  := $(shell $(WASM_CC) -print-resource-dir 2>/dev/null)
# The guest's JS runtime, evaluated in this order when the image is made: the
# built-ins the engine lacks, the console, web APIs, Buffer, process and the Node
# modules, files (fs, modules), tools, Intl.
GUEST_JS   := $(wildcard guest/builtins.js) guest/runtime.js $(wildcard guest/web.js) \
	$(wildcard guest/buffer.js) guest/node.js guest/sqlite.js $(wildcard guest/fs.js) guest/tools.js \
	$(wildcard guest/intl.js)

# The guest sees wasi-libc's headers only: -nostdinc keeps glibc's /usr/include out.
GUEST_CFLAGS := --target=wasm32-wasi --sysroot=/usr -nostdinc \
	-isystem $(CLANG_RES)/include -isystem /usr/include/wasm32-wasi \
	-O2 -mbulk-memory -D_GNU_SOURCE -DCONFIG_VERSION='"2021-03-27"' -DCONFIG_BIGNUM \
	-isystem $(QJS) -isystem $(SQLITE) -I$(GEN) -Iguest
# Reactor: exported entry points, no _start. The shadow stack comes first in memory,
# so running off its end traps instead of overwriting data.
GUEST_LDFLAGS := --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor \
	-Wl,--stack-first -Wl,-z,stack-size=1048576 -Wl,--strip-debug

QJS_SRCS   := quickjs libregexp libunicode cutils libbf
# The guest's own C (guest/): its exports, the event loop, the natives of the JS
# files, and the bridge to the shell.
GUEST_SRCS := main loop tools web fs node sqlite bridge
# The shell (guest/shell/): the interpreter and its applets, in the same guest.
SHELL_GUEST_SRCS := $(notdir $(basename $(wildcard guest/shell/*.c)))

# SQLite (build/sqlite/sqlite3.c, the amalgamation of deps/sqlite.lock) in the guest,
# with these options and nothing else changed from SQLite's defaults: the sqlite3
# command built from its shell.c links the same library and is compared with
# Debian's sqlite3, so DQS, foreign keys and the like keep their default. Single-
# threaded (one sandbox is one thread), no extension loading (nothing to load
# from), FTS5 and the math functions on (JSON and window functions are built in).
# Its files are the VFS's through WASI. The _WASI_EMULATED_* defines let
# wasi-libc's headers declare what sqlite3.c (and shell.c) include; SQLITE_LDLIBS
# are the libraries behind them, linked only for what a caller really uses
# (sqlite3.c itself needs none of them). Column metadata gives the JS modules the
# table and column of a result (StatementSync.columns(), better-sqlite3's expand());
# SQLITE_EXTRA_INIT is guest/sqlite.c's setup of the VFS's locking, run by
# sqlite3_initialize for every user of the library.
SQLITE_CFLAGS := -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_ENABLE_FTS5 \
	-DSQLITE_ENABLE_MATH_FUNCTIONS -DSQLITE_ENABLE_COLUMN_METADATA \
	-DSQLITE_EXTRA_INIT=capsa_sqlite_init -D_WASI_EMULATED_MMAN -D_WASI_EMULATED_SIGNAL \
	-D_WASI_EMULATED_PROCESS_CLOCKS -D_WASI_EMULATED_GETPID
SQLITE_LDLIBS := -lwasi-emulated-mman -lwasi-emulated-signal \
	-lwasi-emulated-process-clocks -lwasi-emulated-getpid

# Generated C is third-party-shaped: no -Werror, warnings off. It is compiled once
# and only again when the guest itself changes. Its functions start on a cache
# line: the interpreter's loop is then laid out the same whatever host code is
# linked before it (without, fib's time moved by 10% between two links of the same
# code: build/bench/capsa_bench compute 7 1 bench/scripts/fib.js).
GEN_CFLAGS := -O2 -fPIC -DNDEBUG -w -falign-functions=64 -I$(GEN) -Isrc

WARN       := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-unused-parameter
HOST_CFLAGS := -std=gnu11 -O2 -g -fPIC -pthread $(WARN) -Iinclude -Isrc -Iguest -I$(GEN) \
	-fvisibility=hidden
HOST_LIBS  := -ljansson -lzstd -lpthread -lm

# SANITIZE=1: our own C (host, CLI, tests) with AddressSanitizer and
# UndefinedBehaviorSanitizer; the generated guest C is left uninstrumented (its
# memory safety comes from the guard pages, and instrumenting 9 MB of it would
# make the tests many times slower). Use a build directory of its own.
# SANITIZE=fuzz: the same, plus coverage for libFuzzer (fuzz/fuzz.mk, with clang).
ifeq ($(SANITIZE),1)
SAN_FLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
endif
ifeq ($(SANITIZE),fuzz)
SAN_FLAGS  := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
endif
HOST_CFLAGS += $(SAN_FLAGS)
HOST_LIBS  := $(SAN_FLAGS) $(HOST_LIBS)

# The version, from include/capsa.h (its one home), and the major number that
# the shared libraries' SONAME carries (docs/install.md, "Versions and ABI").
VERSION    := $(shell sh pkg/version.sh include/capsa.h)
SOMAJOR    := $(firstword $(subst ., ,$(VERSION)))

HOST_SRCS  := rt vfs vfs_host vfs_tar vfs_ckpt wasi instance sandbox fs policy tools audit dts json json_write result buf error \
	schema sha256 checkpoint ckpt_body
# The library's objects: the host's, the guest's, and the ready image (below).
HOST_OBJS  := $(HOST_SRCS:%=$(OBJ)/%.o) $(GUEST_OBJ) $(OBJ)/ready_image.o
# What reaches capsa from outside (net/: JSON-RPC, the MCP server and its
# transports), a library of its own beside libcapsa, built on include/capsa.h
# only, so that an embedder of the core links none of it.
NET_SRCS   := jsonrpc mcp_server mcp_stdio http mcp_http mcp_client mcp_client_http \
	store store_dir store_redis serve serve_parse lazylibs
# src/json_write.c (JSON text with reals as JavaScript writes them) needs only jansson:
# compiled into both libraries, so that net/ stays on include/capsa.h.
NET_OBJS   := $(NET_SRCS:%=$(OBJ)/net-%.o) $(OBJ)/net-json_write.o
# libcurl, libmicrohttpd and libcrypto are not linked: net/lazylibs.c loads them when first
# used (their headers are still needed to build).
NET_LIBS   := -ljansson -lhiredis -lpthread
# The capsa program (cli/), and what it links besides libcapsa.
CLI_SRCS   := capsa run repl opts tools mcp serve
CLI_OBJS   := $(CLI_SRCS:%=$(OBJ)/cli-%.o)
CLI_LIBS   := $(BUILD)/libcapsa-net.a $(NET_LIBS)

.PHONY: all deps demo test bench clean distclean
all: $(BUILD)/libcapsa.a $(BUILD)/libcapsa.so $(BUILD)/libcapsa-net.a $(BUILD)/libcapsa-net.so \
	$(BUILD)/capsa

deps:
	@sh deps/install.sh

# What the build needs, checked once before it starts: deps/check.sh names the Debian
# package of anything missing. Order-only below, so it never makes anything rebuild.
$(BUILD)/.deps-checked: deps/check.sh
	@mkdir -p $(BUILD)
	@CC="$(CC)" WASM_CC="$(WASM_CC)" WASM2C="$(WASM2C)" sh deps/check.sh
	@touch $@

# --- third-party sources -------------------------------------------------------------
ifeq ($(GUEST_FROM),)
$(QJS)/.stamp: deps/fetch.sh deps/quickjs.lock $(wildcard deps/quickjs/*.patch) | $(BUILD)/.deps-checked
	@sh deps/fetch.sh quickjs $(QJS)
	@touch $@

$(SQLITE)/.stamp: deps/fetch.sh deps/sqlite.lock $(wildcard deps/sqlite/*.patch) | $(BUILD)/.deps-checked
	@sh deps/fetch.sh sqlite $(SQLITE)
	@touch $@

# --- the guest -------------------------------------------------------------------------
$(GEN)/runtime_js.h: $(GUEST_JS) tools/embed.sh
	@mkdir -p $(GEN)
	sh tools/embed.sh capsa_js $(GUEST_JS) > $@.tmp && mv $@.tmp $@

$(GOBJ)/qjs-%.o: $(QJS)/.stamp
	@mkdir -p $(GOBJ)
	$(WASM_CC) $(GUEST_CFLAGS) -Wno-implicit-const-int-float-conversion -c $(QJS)/$*.c -o $@

$(GOBJ)/%.o: guest/%.c $(wildcard guest/*.h) $(wildcard guest/shell/*.h) $(GEN)/runtime_js.h $(QJS)/.stamp \
		$(SQLITE)/.stamp
	@mkdir -p $(GOBJ)
	$(WASM_CC) $(GUEST_CFLAGS) -Wall -Wextra -Werror -c $< -o $@

# The options SQLite's objects are compiled with, rewritten only when they change,
# so that a change compiles them again.
$(GOBJ)/sqlite.flags: FORCE
	@mkdir -p $(GOBJ)
	@echo '$(SQLITE_CFLAGS)' | cmp -s - $@ || echo '$(SQLITE_CFLAGS)' > $@
.PHONY: FORCE
FORCE:

# SQLite is third-party code: its own warnings are not ours to fix (-w).
$(GOBJ)/sqlite3.o: $(SQLITE)/.stamp $(GOBJ)/sqlite.flags
	@mkdir -p $(GOBJ)
	$(WASM_CC) $(GUEST_CFLAGS) $(SQLITE_CFLAGS) -w -c $(SQLITE)/sqlite3.c -o $@

$(GOBJ)/shell-%.o: guest/shell/%.c $(wildcard guest/shell/*.h)
	@mkdir -p $(GOBJ)
	$(WASM_CC) $(GUEST_CFLAGS) -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
		-Wmissing-prototypes -Wno-unused-parameter -Wno-missing-field-initializers -c $< -o $@

# The sqlite3 applet's engine: SQLite's own shell.c (build/sqlite, patched by
# deps/sqlite/*.patch) inside sqlite3_cli.c, third-party code compiled as the library
# is (its options, -w), without assertions as in SQLite's release builds; errno is
# reached as sh.h says (local-exec).
$(GOBJ)/shell-sqlite3_cli.o: guest/shell/sqlite3_cli.c guest/shell/sqlite3_cli.h $(SQLITE)/.stamp \
		$(GOBJ)/sqlite.flags
	@mkdir -p $(GOBJ)
	$(WASM_CC) $(GUEST_CFLAGS) $(SQLITE_CFLAGS) -DNDEBUG -ftls-model=local-exec -I$(SQLITE) -w -c $< -o $@

# guest/abi.h must name every import and export of the module (tools/check-abi.sh),
# and no instruction of it may write its function table.
$(GUEST_DIR)/guest.wasm: $(QJS_SRCS:%=$(GOBJ)/qjs-%.o) $(GUEST_SRCS:%=$(GOBJ)/%.o) \
		$(SHELL_GUEST_SRCS:%=$(GOBJ)/shell-%.o) $(GOBJ)/sqlite3.o guest/abi.h tools/check-abi.sh
	$(WASM_CC) $(GUEST_LDFLAGS) $(filter %.o,$^) $(SQLITE_LDLIBS) -o $@
	sh tools/check-abi.sh $@ guest/abi.h || { rm -f $@; exit 1; }
	@if wasm-objdump -d $@ | grep -qE ' (table\.(set|grow|fill|copy|init)|elem\.drop)'; then \
	    echo "$@ writes its function table: a recycled instance keeps its table" \
	        "(src/instance.c, capsa__instance_recycle)" >&2; rm -f $@; exit 1; fi

# The module is named explicitly (-n guest: Z_guest_*). wasm2c's output is
# then metered (tools/instrument.sh) so that time and fuel limits stop any guest code.
$(GEN)/guest.c: $(GUEST_DIR)/guest.wasm tools/instrument.sh
	@mkdir -p $(GEN)
	$(WASM2C) -n guest $< -o $(GEN)/guest-raw.c
	sh tools/instrument.sh $(GEN)/guest-raw.c $(GEN)/guest-raw.h $(GEN)/guest.c $(GEN)/guest.h

$(GEN)/guest.h: $(GEN)/guest.c

# The guest's build id, which a checkpoint names: the SHA-256 of the generated C (a
# blob made by another build of the guest is refused; src/checkpoint.c).
$(GEN)/guest_id.h: $(GEN)/guest.c
	@printf '#define CAPSA__GUEST_ID "%s"\n' "$$(sha256sum $< | cut -c1-64)" > $@.tmp && mv $@.tmp $@

# Profile-guided (GUEST_PGO=1, the default with gcc): the generated C is compiled
# instrumented, a capsa CLI linked with it runs the training workload
# (tools/pgo-train.sh: the JS feature tests and the example agent, never the
# benchmark's scripts), and the C is compiled again with that profile, under the
# same object name (gcc finds the profile by it). Code the training never ran is
# still optimised as usual (-fprofile-partial-training). make bench measured the
# compute geomean going from 1.16x to 1.10x of native QuickJS. GUEST_PGO=0 compiles
# once (1 minute here instead of 2.5); clang builds (the fuzzers') never use it.
GUEST_PGO ?= $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null | head -n 1)),0,1)
# $(call guest_cc,SRC,OBJ): compiles the generated C SRC into OBJ; the training CLI
# is linked from OBJ, the host objects and the CLI's object (order-only
# prerequisites of OBJ's rule: a change to them does not need a new profile).
define guest_cc
	@mkdir -p $(dir $(2))
	@if [ "$(GUEST_PGO)" = 1 ]; then \
	    echo "CC $(1) (generated guest, profile-guided: about two and a half minutes)" && \
	    rm -rf $(2).pgo && mkdir -p $(2).pgo && \
	    $(CC) $(GEN_CFLAGS) -fprofile-generate=$(abspath $(2).pgo) -fprofile-update=single \
	        -c $(1) -o $(2) && \
	    $(CC) -pthread -fprofile-generate -o $(2).train $(CLI_OBJS) \
	        $(HOST_SRCS:%=$(OBJ)/%.o) $(OBJ)/ready_none.o $(2) $(CLI_LIBS) $(HOST_LIBS) && \
	    sh tools/pgo-train.sh $(2).train && \
	    $(CC) $(GEN_CFLAGS) -fprofile-use=$(abspath $(2).pgo) -fprofile-partial-training \
	        -c $(1) -o $(2) && \
	    rm -f $(2).train; \
	else \
	    echo "CC $(1) (generated guest, takes about a minute)" && \
	    $(CC) $(GEN_CFLAGS) -c $(1) -o $(2); \
	fi || { rm -f $(2); exit 1; }
endef

$(GUEST_OBJ): $(GEN)/guest.c src/fuel.h tools/pgo-train.sh | \
		$(HOST_SRCS:%=$(OBJ)/%.o) $(OBJ)/ready_none.o $(CLI_OBJS) $(BUILD)/libcapsa-net.a
	$(call guest_cc,$<,$@)
endif # GUEST_FROM

# --- the host --------------------------------------------------------------------------
$(OBJ)/%.o: src/%.c include/capsa.h $(wildcard src/*.h) guest/abi.h $(GEN)/guest.h $(GEN)/guest_id.h
	@mkdir -p $(OBJ)
	$(CC) $(HOST_CFLAGS) -c $< -o $@

# The ready image (src/instance.c, src/ready_image.S): the guest's memory once
# initialised, made by tools/mkimage.c, linked from this build's own host objects
# and guest with an empty image (ready_none.o, which also serves links that must
# start the guest themselves), so that a change to either makes it again. A
# process then maps it instead of running the guest's start.
$(OBJ)/ready_none.o: src/ready_image.S
	@mkdir -p $(OBJ)
	$(CC) -c $< -o $@

$(OBJ)/ready_image.o: src/ready_image.S $(BUILD)/ready.img
	$(CC) -DREADY_IMAGE='"$(abspath $(BUILD)/ready.img)"' -c $< -o $@

$(BUILD)/mkimage: tools/mkimage.c $(HOST_SRCS:%=$(OBJ)/%.o) $(GUEST_OBJ) $(OBJ)/ready_none.o
	$(CC) $(HOST_CFLAGS) -o $@ $^ $(HOST_LIBS)

$(BUILD)/ready.img: $(BUILD)/mkimage
	$(BUILD)/mkimage $@.tmp && mv -f $@.tmp $@

$(BUILD)/libcapsa.a: $(HOST_OBJS)
	rm -f $@ && ar rcs $@ $^

# $(call shared_lib,NAME,OBJS,LIBS): links $(BUILD)/NAME.so with the SONAME
# NAME.so.$(SOMAJOR), exporting the capsa_* functions only (pkg/libcapsa.map),
# into a new file that is then renamed over the old one: a process that has the
# old one loaded (a test running alongside) keeps its mapping intact. The link
# NAME.so.$(SOMAJOR) lets a program linked against the build tree run from it
# (LD_LIBRARY_PATH=$(BUILD)). -z defs: every symbol the library needs comes from
# a library it names (what the Debian package's dependencies are computed from);
# sanitizer builds leave their runtime to the program.
define shared_lib
	$(CC) -shared -pthread -Wl,-soname,$(1).so.$(SOMAJOR) \
		-Wl,--version-script=pkg/libcapsa.map $(if $(SAN_FLAGS),,-Wl,-z,defs) \
		-o $(BUILD)/$(1).so.tmp $(2) $(3)
	mv -f $(BUILD)/$(1).so.tmp $(BUILD)/$(1).so
	ln -sfn $(1).so $(BUILD)/$(1).so.$(SOMAJOR)
endef

$(BUILD)/libcapsa.so: $(HOST_OBJS) pkg/libcapsa.map
	$(call shared_lib,libcapsa,$(HOST_OBJS),$(HOST_LIBS))

$(OBJ)/cli-%.o: cli/%.c include/capsa.h include/capsa_net.h $(wildcard cli/*.h) $(wildcard net/*.h) | $(BUILD)/.deps-checked
	@mkdir -p $(OBJ)
	$(CC) -std=gnu11 -O2 -g $(WARN) $(SAN_FLAGS) -Iinclude -c $< -o $@

$(OBJ)/net-%.o: net/%.c include/capsa.h include/capsa_net.h $(wildcard net/*.h) | $(BUILD)/.deps-checked
	@mkdir -p $(OBJ)
	$(CC) -std=gnu11 -O2 -g -fPIC -fvisibility=hidden $(WARN) $(SAN_FLAGS) -Iinclude -c $< -o $@

$(OBJ)/net-json_write.o: src/json_write.c src/json_write.h | $(BUILD)/.deps-checked
	@mkdir -p $(OBJ)
	$(CC) -std=gnu11 -O2 -g -fPIC -fvisibility=hidden $(WARN) $(SAN_FLAGS) -c $< -o $@

$(BUILD)/libcapsa-net.a: $(NET_OBJS)
	rm -f $@ && ar rcs $@ $^

# The same as a shared object for bindings (Python's mcp_servers): it exports the
# API of include/capsa_net.h and finds libcapsa.so beside itself.
NET_SO_LIBS = -Wl,-rpath,'$$ORIGIN' -L$(BUILD) -lcapsa $(NET_LIBS)
$(BUILD)/libcapsa-net.so: $(NET_OBJS) $(BUILD)/libcapsa.so pkg/libcapsa.map
	$(call shared_lib,libcapsa-net,$(NET_OBJS),$(NET_SO_LIBS))

$(BUILD)/capsa: $(CLI_OBJS) $(BUILD)/libcapsa-net.a $(BUILD)/libcapsa.a
	$(CC) -pthread -o $@ $(CLI_OBJS) $(BUILD)/libcapsa.a $(CLI_LIBS) $(HOST_LIBS)

# The demo tools (examples/tools/demo_tool.c): one small program, the commands of
# examples/tools/tools.json.
$(BUILD)/capsa-demo-tool: examples/tools/demo_tool.c
	$(CC) -std=gnu11 -O2 $(WARN) $< -o $@ -ljansson

# --- the two commands ------------------------------------------------------------------
demo: deps
	@$(MAKE) --no-print-directory all $(BUILD)/capsa-demo-tool
	$(BUILD)/capsa run examples/agent.js
	PATH="$(abspath $(BUILD)):$$PATH" $(BUILD)/capsa run --tools examples/tools/tools.json \
		--policy examples/tools/policy.json examples/tools_agent.js
	PATH="$(abspath $(BUILD)):$$PATH" $(BUILD)/capsa shell --tools examples/tools/tools.json \
		--policy examples/tools/policy.json examples/shell_agent.sh

-include tests/tests.mk
-include bench/bench.mk
-include fuzz/fuzz.mk
-include python/python.mk
-include pkg/pkg.mk

clean:
	rm -rf $(OBJ) $(BUILD)/capsa $(BUILD)/libcapsa.* $(BUILD)/tests

distclean:
	rm -rf $(BUILD)
