const keep = console.log;
for (const k of Reflect.ownKeys(console)) console[k] = () => { throw new Error('console.' + String(k)); };
keep('kept reference still prints');
throw new RangeError('error printed by the host, not by console');
