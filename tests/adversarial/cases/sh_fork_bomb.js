// The classic fork bomb, as a shell function: pipelines run inside the guest, so
// it is only a deep and wide recursion, which the time limit ends.
await shell('f() { f | f; }; f');
