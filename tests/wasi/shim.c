/* Binds one wasm2c-compiled conformance module to the runner: compiled once per
 * module with -DWASI_MODULE=<wasm2c name> and -include <its header>. Including
 * src/wasi.h next to the generated header also checks that every import the
 * module declares has the type the host defines. */
#include "runner.h"

#ifndef WASI_MODULE
#error "compile with -DWASI_MODULE=<name given to wasm2c -n> and -include <its header>"
#endif

#define PASTE3(a, b, c) a##b##c
#define XPASTE3(a, b, c) PASTE3(a, b, c)
#define STR(x) #x
#define XSTR(x) STR(x)

#define INSTANCE XPASTE3(Z_, WASI_MODULE, _instance_t)

static void init_module(void)
{
    XPASTE3(Z_, WASI_MODULE, _init_module)();
}

static void instantiate(void *inst, capsa__wasi *w)
{
    XPASTE3(Z_, WASI_MODULE, _instantiate)(inst, w);
}

static void start(void *inst)
{
    XPASTE3(Z_, WASI_MODULE, Z__start)(inst);
}

static void free_instance(void *inst)
{
    XPASTE3(Z_, WASI_MODULE, _free)(inst);
}

static wasm_rt_memory_t *memory(void *inst)
{
    return XPASTE3(Z_, WASI_MODULE, Z_memory)(inst);
}

static int64_t *fuel(void *inst)
{
    return &((INSTANCE *)inst)->capsa_fuel;
}

const wasi_test_module wasi_test_module_desc = {
    XSTR(WASI_MODULE), sizeof(INSTANCE), init_module, instantiate, start, free_instance, memory, fuel,
};
