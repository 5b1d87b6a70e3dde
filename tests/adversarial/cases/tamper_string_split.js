// Only split is replaced: multi-line strings, messages and stacks still print.
const v = { text: 'line 1\nline 2' };
String.prototype.split = () => { throw new Error('split'); };
console.log('a\nb', v);
console.log(new Error('multi\nline').message);
Promise.reject(new Error('rejected\ntoo'));
throw new Error('thrown\nacross lines');
