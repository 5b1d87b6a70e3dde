// Nothing of the host's command line: no scriptArgs, no process.argv, no
// arguments at the top level.
let topArgs;
try { topArgs = typeof arguments; } catch (e) { topArgs = e.name; }
return [typeof scriptArgs, typeof process, topArgs];
