;; A small module for the runtime layer's tests (tests/rt/test_rt.c): each export
;; does one thing, most of them something that must trap. Memory: 1 page, at most 4.
;; Layout of the first page: 0..4 fixed data (the word 42, then the byte 1), 8..11
;; the sum accumulator, 16..23 recursion scratch, [32, 8224) a shadow stack that
;; grows down as a C compiler's would; the tests use the rest.
(module
  (type $v_i (func (result i32)))
  (type $i_i (func (param i32) (result i32)))

  ;; host.call(x): lets the test run host code from inside guest code.
  (import "host" "call" (func $host_call (param i32) (result i32)))

  (memory (export "memory") 1 4)
  (data (i32.const 0) "\2a\00\00\00\01")

  ;; Slot 0 and 3 stay null; slot 1 is () -> i32, slot 2 is (i32) -> i32.
  (table 4 funcref)
  (elem (i32.const 1) $seven $double)
  (func $seven (type $v_i) (i32.const 7))
  (func $double (type $i_i) (i32.mul (local.get 0) (i32.const 2)))

  ;; ---- memory ---------------------------------------------------------------
  (func (export "load") (param i32) (result i32)
    (i32.load (local.get 0)))
  (func (export "load8") (param i32) (result i32)
    (i32.load8_u (local.get 0)))
  (func (export "load_off_max") (param i32) (result i32)
    (i32.load offset=0xffffffff (local.get 0)))
  (func (export "load64_off_max") (param i32) (result i64)
    (i64.load offset=0xffffffff (local.get 0)))
  (func (export "store") (param i32 i32)
    (i32.store (local.get 0) (local.get 1)))
  (func (export "store8") (param i32 i32)
    (i32.store8 (local.get 0) (local.get 1)))
  (func (export "store_off_max") (param i32 i32)
    (i32.store offset=0xffffffff (local.get 0) (local.get 1)))
  (func (export "grow") (param i32) (result i32)
    (memory.grow (local.get 0)))
  (func (export "size") (result i32)
    (memory.size))

  ;; ---- traps other than memory ------------------------------------------------
  (func (export "unreachable")
    (unreachable))
  (func (export "div_s") (param i32 i32) (result i32)
    (i32.div_s (local.get 0) (local.get 1)))
  (func (export "div_u") (param i32 i32) (result i32)
    (i32.div_u (local.get 0) (local.get 1)))
  (func (export "rem_s") (param i32 i32) (result i32)
    (i32.rem_s (local.get 0) (local.get 1)))
  (func (export "trunc_f64_s") (param f64) (result i32)
    (i32.trunc_f64_s (local.get 0)))
  ;; Calls table slot i as () -> i32.
  (func (export "call_slot") (param i32) (result i32)
    (call_indirect (type $v_i) (local.get 0)))

  ;; ---- recursion ----------------------------------------------------------------
  ;; deep(n) recurses n levels and returns n. The store before and the load after
  ;; the call keep the C compiler from turning the recursion into a loop.
  (func $deep (export "deep") (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 0))
      (else
        (i32.store (i32.const 16) (local.get $n))
        (i32.add
          (call $deep (i32.sub (local.get $n) (i32.const 1)))
          (i32.load8_u (i32.const 4))))))
  ;; recurse(n) never returns: it ends only when the stack runs out.
  (func $recurse (export "recurse") (param $n i32) (result i32)
    (i32.store (i32.const 20) (local.get $n))
    (i32.add
      (call $recurse (i32.add (local.get $n) (i32.const 1)))
      (i32.load8_u (i32.const 4))))

  ;; shadow_recurse(n) never returns: like C code compiled with the stack first in
  ;; memory, each level moves the stack pointer down 1 KiB and stores there, until
  ;; the pointer wraps below 0 to just under 4 GiB.
  (global $sp (mut i32) (i32.const 8224))
  (func $shadow (export "shadow_recurse") (param $n i32) (result i32)
    (global.set $sp (i32.sub (global.get $sp) (i32.const 1024)))
    (i32.store (global.get $sp) (local.get $n))
    (local.set $n (call $shadow (i32.add (local.get $n) (i32.const 1))))
    (global.set $sp (i32.add (global.get $sp) (i32.const 1024)))
    (local.get $n))
  ;; sp() is the shadow stack pointer, so that a test can see it wrapped.
  (func (export "sp") (result i32)
    (global.get $sp))

  ;; ---- ordinary work --------------------------------------------------------------
  ;; sum(n) = 0 + 1 + ... + (n - 1), computed by a loop, kept in memory at 8.
  (func $sum (export "sum") (param $n i32) (result i32)
    (local $i i32)
    (i32.store (i32.const 8) (i32.const 0))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (i32.store (i32.const 8) (i32.add (i32.load (i32.const 8)) (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.load (i32.const 8)))

  ;; via_host(x) = host.call(x) + 1: guest code around a host function.
  (func (export "via_host") (param i32) (result i32)
    (i32.add (call $host_call (local.get 0)) (i32.const 1)))

  ;; sum_then(n, how) = sum(n), then how 1: unreachable, 2: a load out of bounds,
  ;; 3: host.call(n). The same metering points run before each of those, so each
  ;; spends the same fuel as how 0 (just return).
  (func (export "sum_then") (param $n i32) (param $how i32) (result i32)
    (drop (call $sum (local.get $n)))
    (if (i32.eq (local.get $how) (i32.const 1)) (then unreachable))
    (if (i32.eq (local.get $how) (i32.const 2))
      (then (drop (i32.load (i32.const 0x100000)))))
    (if (i32.eq (local.get $how) (i32.const 3))
      (then (drop (call $host_call (local.get $n)))))
    (i32.const 0))
)
