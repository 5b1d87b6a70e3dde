/* Fuel metering, compiled into the guest's generated C by tools/instrument.sh:
 * each metering point spends one unit from the instance's counter, and an empty
 * counter asks the runtime (src/rt.c) for the next slice, which is also where the
 * wall-clock deadline is checked. */
#ifndef CAPSA_FUEL_H
#define CAPSA_FUEL_H

#include <stdint.h>

/* Refills *counter with the next slice of the current guest call's budget, or
 * stops the call with a timeout or out-of-fuel trap. */
void capsa__rt_fuel_slice(int64_t *counter);

#define CAPSA_FUEL(inst)                                    \
    do {                                                    \
        if (__builtin_expect(--(inst)->capsa_fuel < 0, 0))  \
            capsa__rt_fuel_slice(&(inst)->capsa_fuel);      \
    } while (0)

#endif
