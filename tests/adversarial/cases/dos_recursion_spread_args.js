function f(...args) { return args.length; }
return f(...new Array(1e6).fill(1));
