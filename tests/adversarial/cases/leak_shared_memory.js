// SharedArrayBuffer exists in the engine but there is nothing to share with:
// no threads, no workers, no Atomics to wait with.
const sab = new SharedArrayBuffer(16);
const u = new Int32Array(sab);
u[0] = 7;
return [typeof Atomics, u[0], sab.byteLength, typeof structuredClone === 'function' ?
  (() => { try { return typeof structuredClone(sab); } catch (e) { return e.name; } })() : 'none'];
