// An agent's defensive data pipeline: each step may fail on bad input, and the report
// prints the caught errors' names and messages, as scripts written for Node do.
const records = [
  '{"id": 1, "user": {"name": "Ann", "tags": ["a", "b"]}, "score": 9.5}',
  '{"id": 2, "user": null, "score": 7}',
  '{"id": 3, "score": 8}',
  '{"id": 4, "user": {"name": "Dee", "tags": "x"}, "score": "high"}',
  '{"id": 5, "user": {"name": "Eve", "tags": []}, score: 3}',
  '{"id": 6, "user": {"name": "Fay", "tags": []}, "score": 4,}',
  '',
  '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head></html>',
  '{"id": 9, "user": {"name": "Gus", "tags": ["z"]}, "score": 5} trailing',
];

function attempt(label, step) {
  try {
    const value = step();
    console.log(`${label}: ok ${JSON.stringify(value)}`);
    return value;
  } catch (err) {
    console.log(`${label}: ${err.name}: ${err.message}`);
    return undefined;
  }
}

const parsed = records.map((text, i) => attempt(`parse #${i}`, () => JSON.parse(text)));

for (const record of parsed.filter(Boolean)) {
  attempt(`name of ${record.id}`, () => record.user.name.toUpperCase());
  attempt(`tags of ${record.id}`, () => record.user.tags.map((t) => t.toUpperCase()));
  attempt(`first tag of ${record.id}`, () => {
    const [first] = record.user.tags;
    return first;
  });
  attempt(`score of ${record.id}`, () => record.score.toFixed(1));
  attempt(`profile of ${record.id}`, () => {
    const { name, email } = record.user;
    return `${name} <${email ?? 'none'}>`;
  });
}

// Helpers called the wrong way.
const helpers = { format: (x) => `[${x}]`, limits: { max: 10 } };
attempt('format', () => helpers.format(1));
attempt('formatAll', () => helpers.formatAll([1, 2]));
attempt('limits.check', () => helpers.limits.check(5));
attempt('limits as function', () => helpers.limits(5));
attempt('missing helper', () => missingHelper(1));
attempt('new on arrow', () => new helpers.format(1));
attempt('sum of nothing', () => [].reduce((a, b) => a + b));
attempt('callback not a function', () => [1, 2].map('double'));
attempt('iterate an object', () => {
  for (const [k, v] of helpers.limits) console.log(k, v);
});

// Errors a class hierarchy raises, and the headers their stacks start with.
class PipelineError extends Error {
  constructor(step, cause) {
    super(`step ${step} failed`, { cause });
    this.name = 'PipelineError';
    this.step = step;
  }
}
class Stage {
  constructor(name) {
    this.name = name;
  }
  run(input) {
    return input.map((x) => x * 2);
  }
}
attempt('stage without new', () => Stage('double'));
attempt('stage on a number', () => new Stage('double').run(5));
try {
  try {
    new Stage('double').run(undefined);
  } catch (cause) {
    throw new PipelineError('double', cause);
  }
} catch (err) {
  console.log(err.stack.split('\n')[0]);
  console.log(`cause: ${err.cause.name}: ${err.cause.message}`);
  console.log(String(err), err instanceof PipelineError, err.step);
}

// Constants, scopes and recursion.
attempt('reassign a constant', () => {
  const retries = 3;
  retries = 4;
  return retries;
});
attempt('use before declaration', () => {
  const total = subtotal * 2;
  let subtotal = 5;
  return total;
});
attempt('runaway recursion', () => {
  const walk = (node) => walk({ parent: node });
  return walk(null);
});
attempt('negative size', () => new Array(-5));
attempt('bad repeat', () => '-'.repeat(-1));
attempt('bad date', () => new Date('not a date').toISOString());

// Serialising what cannot be serialised.
const tree = { name: 'root', children: [] };
tree.children.push({ name: 'leaf', parent: tree });
attempt('serialise tree', () => JSON.stringify(tree));
attempt('serialise bigint', () => JSON.stringify({ total: 10n }));
attempt('serialise with replacer', () => JSON.stringify(tree, (k, v) => (k === 'parent' ? undefined : v)));
