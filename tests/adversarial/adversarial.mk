# The adversarial suite's helper: adv_fresh runs an attack in one sandbox and checks
# that the others, and the attacked one after a reset, are still pristine. Run by
# tests/adversarial/run.sh (not a test_* program: it needs a script to attack with).
# Included from tests/tests.mk.

$(TEST_BIN)/adv_fresh: tests/adversarial/fresh.c include/capsa.h $(BUILD)/libcapsa.a
	@mkdir -p $(TEST_BIN)
	$(CC) $(TEST_CFLAGS) $< -o $@ $(BUILD)/libcapsa.a $(HOST_LIBS)

test-build: $(TEST_BIN)/adv_fresh $(BUILD)/capsa-demo-tool
