/* Fuel metering, compiled into the guest's generated C by tools/instrument.sh:
 * each metering point spends one unit from the instance's counter, and an empty
 * counter asks the runtime (src/rt.c) for the next slice, which is also where the
 * wall-clock deadline is checked.
 *
 * Where the counter lives while guest code runs: on x86-64 with GCC, in a
 * register (r15) that the generated C reserves for it, so that a metering point
 * is one register decrement and branch instead of a read-modify-write of memory
 * (make bench: enforcement.geomean, the metered guest's time over
 * the unmetered one's, went from 1.13x to 1.08x). Elsewhere, in the instance's
 * capsa_fuel field. Either way the field is what the runtime reads: the guest's
 * exported functions load the register from it and store it back, and the
 * register is written to the field before any host function or trap (see the
 * CAPSA_FUEL_* macros below and fault_trap in src/rt.c). r15 is callee-saved, so
 * host code called from the guest keeps it intact, and an exported function gives
 * its caller's r15 back. */
#ifndef CAPSA_FUEL_H
#define CAPSA_FUEL_H

#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CAPSA_FUEL_IN_REGISTER 1
#else
#define CAPSA_FUEL_IN_REGISTER 0
#endif

/* Called when a metering point took the counter from 0 to -1: returns the counter
 * refilled with the next slice of the current guest call's budget (also stored in
 * *counter), or stops the call with a timeout or out-of-fuel trap. counter
 * identifies the instance. Not passing the -1 keeps a register free at every
 * metering point. */
int64_t capsa__rt_fuel_slice(int64_t *counter);
/* Around a call from guest code to a host function: the first stores the units
 * left in *counter, the second gives back what *counter holds after the call. */
void capsa__rt_fuel_to_host(int64_t *counter, int64_t left);
int64_t capsa__rt_fuel_from_host(int64_t *counter);
/* A trap raised by guest code that keeps its counter in the register, with left
 * units in it. */
_Noreturn void capsa__rt_fuel_trap(int64_t left, int code);

/* CAPSA_FUEL_UNIT: defined by the generated C that is metered, before anything
 * else, so that its whole translation unit leaves the register alone. */
#if defined(CAPSA_FUEL_UNIT) && CAPSA_FUEL_IN_REGISTER
register int64_t capsa__fuel __asm__("r15");
#define CAPSA_FUEL_LEFT(inst) capsa__fuel
/* An exported function's body, its caller's r15 kept. */
#define CAPSA_FUEL_EXPORT(inst, call)                                   \
    __extension__({                                                     \
        int64_t capsa__caller = capsa__fuel;                            \
        capsa__fuel = (inst)->capsa_fuel;                               \
        __typeof__(call) capsa__r = call;                               \
        (inst)->capsa_fuel = capsa__fuel;                               \
        capsa__fuel = capsa__caller;                                    \
        capsa__r;                                                       \
    })
#define CAPSA_FUEL_EXPORT_VOID(inst, call)                              \
    do {                                                                \
        int64_t capsa__caller = capsa__fuel;                            \
        capsa__fuel = (inst)->capsa_fuel;                               \
        call;                                                           \
        (inst)->capsa_fuel = capsa__fuel;                               \
        capsa__fuel = capsa__caller;                                    \
    } while (0)
#define CAPSA_FUEL_TO_HOST(inst) capsa__rt_fuel_to_host(&(inst)->capsa_fuel, capsa__fuel)
#define CAPSA_FUEL_FROM_HOST(inst) (capsa__fuel = capsa__rt_fuel_from_host(&(inst)->capsa_fuel))
#define CAPSA_FUEL_TRAP(code) capsa__rt_fuel_trap(capsa__fuel, code)
#else
#define CAPSA_FUEL_LEFT(inst) ((inst)->capsa_fuel)
#define CAPSA_FUEL_EXPORT(inst, call) (call)
#define CAPSA_FUEL_EXPORT_VOID(inst, call) call
#define CAPSA_FUEL_TO_HOST(inst) ((void)0)
#define CAPSA_FUEL_FROM_HOST(inst) ((void)0)
#define CAPSA_FUEL_TRAP(code) wasm_rt_trap(code)
#endif

#define CAPSA_FUEL(inst)                                                            \
    do {                                                                            \
        if (__builtin_expect(--CAPSA_FUEL_LEFT(inst) < 0, 0))                       \
            CAPSA_FUEL_LEFT(inst) = capsa__rt_fuel_slice(&(inst)->capsa_fuel);      \
    } while (0)

#endif
