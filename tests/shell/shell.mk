# The shell built natively (tests/shell/native.c): `make shell-native` gives
# $(BUILD)/sh-native and $(BUILD)/sh-bin/, a directory of links named after the
# applets, so that bash can run command lines with our applets in place of the
# system's (tests/shell/compare.sh native). Included from tests/tests.mk.

SHELL_SRCS := $(wildcard guest/shell/*.c)
SHELL_NATIVE_CFLAGS := -std=gnu11 -O1 -g $(WARN) -Wno-missing-field-initializers \
	-fsanitize=address,undefined -fno-omit-frame-pointer -Iguest/shell

$(BUILD)/sh-native: $(SHELL_SRCS) $(wildcard guest/shell/*.h) tests/shell/native.c
	@mkdir -p $(BUILD)
	$(CC) $(SHELL_NATIVE_CFLAGS) $(SHELL_SRCS) tests/shell/native.c -o $@ -lm

.PHONY: shell-native
shell-native: $(BUILD)/sh-native
	@rm -rf $(BUILD)/sh-bin && mkdir -p $(BUILD)/sh-bin
	@for a in $$($(BUILD)/sh-native --applets); do ln -s ../sh-native $(BUILD)/sh-bin/$$a; done

# The "ours" side of compare.sh capsa: every case through the library in one process.
$(TEST_BIN)/shell_batch: tests/shell/batch.c $(BUILD)/libcapsa.a
	@mkdir -p $(TEST_BIN)
	$(CC) $(TEST_CFLAGS) $< -o $@ $(BUILD)/libcapsa.a $(HOST_LIBS)

TEST_PROGRAMS += $(TEST_BIN)/shell_batch
