// Nothing of the host's command line: no scriptArgs, no arguments at the top
// level, and process.argv holds the sandbox's names and the script only (the host
// gave no arguments).
let topArgs;
try { topArgs = typeof arguments; } catch (e) { topArgs = e.name; }
return [typeof scriptArgs, topArgs, process.argv.length, process.argv[0],
  /^\/workspace\/[^/]+$/.test(process.argv[1]), process.argv0, process.execPath];
