// Retry a flaky operation with exponential backoff and a deterministic failure schedule.
class HttpError extends Error {
  constructor(status, message, options) {
    super(message, options);
    this.name = 'HttpError';
    this.status = status;
  }
  get retryable() { return this.status >= 500 || this.status === 429; }
}

function flaky(schedule) {
  let call = 0;
  return async (path) => {
    const outcome = schedule[call++] ?? 200;
    await new Promise((r) => setTimeout(r, 1));
    if (outcome !== 200) throw new HttpError(outcome, `${path} failed with ${outcome}`);
    return { path, call };
  };
}

async function retry(fn, { retries = 3, base = 2, log = [] } = {}) {
  for (let attempt = 0; ; attempt++) {
    try {
      const v = await fn();
      log.push(`attempt ${attempt + 1}: ok`);
      return v;
    } catch (err) {
      const delay = base * 2 ** attempt;
      log.push(`attempt ${attempt + 1}: ${err.message}${err.retryable ? `, retry in ${delay}ms` : ''}`);
      if (!err.retryable || attempt >= retries) {
        throw new Error(`giving up after ${attempt + 1} attempts`, { cause: err });
      }
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

for (const schedule of [[503, 429, 200], [500, 500, 500, 500, 500], [404]]) {
  const log = [];
  try {
    const res = await retry(() => flaky(schedule)('/api/items'), { log });
    console.log('result', res);
  } catch (e) {
    console.log(e.message, '| cause:', e.cause.name, e.cause.status, e.cause instanceof HttpError);
  }
  console.log(log.join('\n'));
}
const e = new HttpError(502, 'bad gateway', { cause: { upstream: 'db' } });
console.log(e.name, e.message, e.status, e.retryable, e.cause, Object.keys(e));
console.log(String(e), e instanceof Error, Object.prototype.toString.call(e));
