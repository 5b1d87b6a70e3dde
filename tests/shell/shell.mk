# The shell built natively (tests/shell/native.c): `make shell-native` gives
# $(BUILD)/sh-native and $(BUILD)/sh-bin/, a directory of links named after the
# applets, so that bash can run command lines with our applets in place of the
# system's (tests/shell/compare.sh native). Included from tests/tests.mk.

SHELL_SRCS := $(filter-out guest/shell/sqlite3_cli.c,$(wildcard guest/shell/*.c))
SHELL_NATIVE_CFLAGS := -std=gnu11 -O1 -g $(WARN) -Wno-missing-field-initializers \
	-fsanitize=address,undefined -fno-omit-frame-pointer -Iguest/shell
# The sqlite3 applet natively: SQLite with the guest's options (less wasi-libc's
# emulations and the guest's VFS setup, guest/sqlite.c), and SQLite's shell.c inside
# sqlite3_cli.c, both third-party code compiled without our warnings.
SQLITE_NATIVE_CFLAGS := $(filter-out -D_WASI_% -DSQLITE_EXTRA_INIT=%,$(SQLITE_CFLAGS))
$(BUILD)/sh-native-sqlite3.o: $(SQLITE)/.stamp
	@mkdir -p $(BUILD)
	$(CC) -O2 -g -w $(SQLITE_NATIVE_CFLAGS) -c $(SQLITE)/sqlite3.c -o $@
$(BUILD)/sh-native-sqlite3_cli.o: guest/shell/sqlite3_cli.c guest/shell/sqlite3_cli.h $(SQLITE)/.stamp
	@mkdir -p $(BUILD)
	$(CC) -std=gnu11 -O1 -g -w -DNDEBUG $(SQLITE_NATIVE_CFLAGS) -fsanitize=address,undefined \
		-fno-omit-frame-pointer -I$(SQLITE) -c $< -o $@

$(BUILD)/sh-native: $(SHELL_SRCS) $(wildcard guest/shell/*.h) tests/shell/native.c \
		$(BUILD)/sh-native-sqlite3.o $(BUILD)/sh-native-sqlite3_cli.o
	@mkdir -p $(BUILD)
	$(CC) $(SHELL_NATIVE_CFLAGS) $(SHELL_SRCS) tests/shell/native.c \
		$(BUILD)/sh-native-sqlite3_cli.o $(BUILD)/sh-native-sqlite3.o -o $@ -lm

.PHONY: shell-native
shell-native: $(BUILD)/sh-native
	@rm -rf $(BUILD)/sh-bin && mkdir -p $(BUILD)/sh-bin
	@for a in $$($(BUILD)/sh-native --applets); do ln -s ../sh-native $(BUILD)/sh-bin/$$a; done

# The "ours" side of compare.sh capsa: every case through the library in one process.
$(TEST_BIN)/shell_batch: tests/shell/batch.c $(BUILD)/libcapsa.a
	@mkdir -p $(TEST_BIN)
	$(CC) $(TEST_CFLAGS) $< -o $@ $(BUILD)/libcapsa.a $(HOST_LIBS)

TEST_PROGRAMS += $(TEST_BIN)/shell_batch

# SQLite's options for a native build (tests/sqlite/statics.sh compiles sqlite3_cli.c).
.PHONY: print-sqlite-native-cflags
print-sqlite-native-cflags:
	@echo $(SQLITE_NATIVE_CFLAGS)
