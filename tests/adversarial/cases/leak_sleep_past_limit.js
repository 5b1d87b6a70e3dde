// A timer far in the future: the run waits for it (it keeps the loop alive)
// but not past its own time limit.
if (typeof setTimeout === 'function') setTimeout(() => console.log('never'), 1e9);
else for (;;) {}
