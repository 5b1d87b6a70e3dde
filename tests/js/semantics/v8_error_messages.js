// The engine's errors in V8's words, as scripts written for Node print and test them.
// Expected: Node's output.
const show = (f) => {
  try {
    f();
    console.log('no error');
  } catch (e) {
    console.log(`${e.constructor.name}: ${e.message}`);
  }
};
let missing;
const nothing = null;
const config = { port: 80, server: null, handlers: {}, list: [1, 2], count: 5 };

// Reading and setting properties of null and undefined.
show(() => missing.length);
show(() => nothing.name);
show(() => config.database.host);
show(() => config.server.port);
show(() => missing[0]);
show(() => missing[Symbol.iterator]);
show(() => { missing.x = 1; });
show(() => { config.server.port = 8080; });
show(() => { config.list[5].value = 1; });

// Calling what is not a function: V8 names the callee.
show(() => missing());
show(() => config.start());
show(() => config.handlers.onReady());
show(() => config.port());
show(() => config.list[0]());
show(() => config['count']());
const key = 'port';
show(() => config[key]());
show(() => JSON.parse('{}').toUpperCase());
show(() => config.list.map(5));
show(() => [1, 2].forEach());
show(() => new config.handlers());
show(() => new missing());
show(() => { const make = () => ({}); return new make(); });

// Variables.
show(() => notDeclaredAnywhere);
show(() => notDeclaredAnywhere());
show(() => { const fixed = 1; fixed = 2; });
show(() => { early; let early = 1; });
show(() => { class Base {} class Derived extends Base { constructor() { this.x = 1; super(); } } new Derived(); });
show(() => { class Point {} Point(); });

// Iteration and destructuring.
show(() => { for (const item of config.count) {} });
show(() => { for (const item of config.handlers) {} });
show(() => { for (const item of missing) {} });
show(() => [...config.handlers]);
show(() => { const [first] = config.server; });
show(() => { const { host } = config.server; });
show(() => { const { host } = missing; });
show(() => { function connect({ host, port }) { return host + port; } connect(); });
show(() => new Map([1, 2]));
show(() => new Set(5));

// Ranges and conversions.
show(() => new Array(-1));
show(() => { const a = []; a.length = 2 ** 32; });
show(() => { function recurse() { return recurse() + 1; } recurse(); });
show(() => 'abc'.repeat(-1));
show(() => (1.5).toFixed(101));
show(() => (255).toString(1));
show(() => new Date(NaN).toISOString());
show(() => [].reduce((a, b) => a + b));
show(() => `${Symbol('tag')}`);
show(() => Symbol('tag') * 2);
show(() => ({}) instanceof config.handlers);
show(() => null instanceof 5);
show(() => Object.keys(null));
show(() => decodeURIComponent('%E0%A4%A'));
show(() => { class Broken extends missing {} });
show(() => [3, 1].sort('desc'));
show(() => new Promise());
