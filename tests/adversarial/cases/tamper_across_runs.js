// Tampering persists in this sandbox (notebook semantics) but not beyond it.
globalThis.leftover = 'from the attack';
Object.prototype.polluted = 1;
Array.prototype.push = () => { throw new Error('push'); };
JSON.stringify = () => 'HACKED';
return 'tampered';
