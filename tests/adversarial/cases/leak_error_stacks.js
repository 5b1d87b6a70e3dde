// Stacks name the script and the runtime's files, never a host path.
const stacks = [];
try { null.x; } catch (e) { stacks.push(e.stack); }
try { console.log({ [Symbol.for('nodejs.util.inspect.custom')]() { throw new Error('from inspect'); } }); }
catch (e) { stacks.push(e.stack); }
try { JSON.parse('{'); } catch (e) { stacks.push(e.stack); }
try { [1].map(() => { throw new Error('in map'); }); } catch (e) { stacks.push(e.stack); }
const all = stacks.join('\n');
return [stacks.length, /\/(work|home|root|tmp|usr|etc)\//.test(all), /\.c:|quickjs/i.test(all)];
