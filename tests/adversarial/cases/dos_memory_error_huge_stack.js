const e = new Error('big stack');
e.stack = '    at f (x.js:1)\n'.repeat(1e6);
throw e;
