// Custom error hierarchy, causes, AggregateError, and try/catch/finally control flow.
class AppError extends Error {
  constructor(message, options = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = this.constructor.name;
    this.code = options.code ?? 'E_APP';
  }
}
class ValidationError extends AppError {
  constructor(field, problem) {
    super(`${field}: ${problem}`, { code: 'E_VALIDATION' });
    this.field = field;
  }
}
class NotFoundError extends AppError {}

function validate(user) {
  const errors = [];
  if (!user.name) errors.push(new ValidationError('name', 'is required'));
  if (!/^[^@\s]+@[^@\s]+$/.test(user.email ?? '')) errors.push(new ValidationError('email', 'is invalid'));
  if (!(user.age >= 0 && user.age < 150)) errors.push(new ValidationError('age', `out of range (${user.age})`));
  if (errors.length) throw new AggregateError(errors, `${errors.length} validation error(s)`);
  return user;
}
for (const u of [{ name: 'Ann', email: 'a@x.io', age: 30 }, { email: 'bad', age: 200 }, { name: 'Bo', email: 'b@y', age: -1 }]) {
  try {
    console.log('valid:', validate(u).name);
  } catch (e) {
    console.log(e.name, e.message, e.errors.map((x) => `${x.name}[${x.code}] ${x.field} ${x.message}`));
  }
}
function load(id) {
  try {
    if (id > 2) throw new NotFoundError(`record ${id} not found`, { code: 'E_404' });
    return { id };
  } catch (e) {
    throw new AppError('load failed', { cause: e });
  } finally {
    console.log(`finally for ${id}`);
  }
}
try { load(1); load(5); } catch (e) {
  let depth = 0;
  for (let cur = e; cur; cur = cur.cause) console.log('  '.repeat(depth++) + `${cur.name} (${cur.code}): ${cur.message}`);
  console.log(e.cause instanceof NotFoundError, e.cause instanceof AppError, e instanceof NotFoundError);
}
const f = () => { try { return 'try'; } finally { console.log('cleanup runs before return'); } };
console.log(f());
const g = () => { try { throw 1; } catch { return 'caught'; } finally { return 'finally wins'; } };
console.log(g());
for (const thrower of [() => null.x, () => undefinedVar, () => { throw 'a string'; }, () => JSON.parse('{bad'), () => new Array(-1), () => (1).toFixed(200)]) {
  try { thrower(); } catch (e) { console.log(typeof e, e instanceof Error ? e.constructor.name : e); }
}
const err = new Error('with cause', { cause: { code: 42 } });
console.log(err.cause, 'cause' in new Error('x'), Object.getOwnPropertyNames(err).sort());
console.log(`${new TypeError('bad type')}`, new RangeError('r').toString(), Error('no new').message);
