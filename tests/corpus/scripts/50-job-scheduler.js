// A priority job queue with limited concurrency, simulated durations and a timeline of events.
class Scheduler {
  #queue = [];
  #running = 0;
  #seq = 0;
  constructor(concurrency) { this.concurrency = concurrency; this.timeline = []; this.t0 = Date.now(); }
  add(name, { priority = 0, ms = 10, fail = false } = {}) {
    return new Promise((resolve, reject) => {
      this.#queue.push({ name, priority, ms, fail, seq: this.#seq++, resolve, reject });
      this.#queue.sort((a, b) => b.priority - a.priority || a.seq - b.seq);
      queueMicrotask(() => this.#pump());
    });
  }
  #pump() {
    while (this.#running < this.concurrency && this.#queue.length) {
      const job = this.#queue.shift();
      this.#running++;
      this.timeline.push(`start ${job.name} (p${job.priority}, running=${this.#running})`);
      setTimeout(() => {
        this.#running--;
        if (job.fail) {
          this.timeline.push(`fail  ${job.name}`);
          job.reject(new Error(`${job.name} failed`));
        } else {
          this.timeline.push(`done  ${job.name}`);
          job.resolve(job.name.toUpperCase());
        }
        this.#pump();
      }, job.ms);
    }
  }
  get pending() { return this.#queue.length; }
}
const s = new Scheduler(2);
const jobs = [
  s.add('fetch-a', { ms: 60 }),
  s.add('fetch-b', { ms: 50 }),
  s.add('index', { priority: 5, ms: 30 }),
  s.add('email', { priority: -1, ms: 10 }),
  s.add('resize', { priority: 5, ms: 80, fail: true }),
  s.add('cleanup', { priority: 1, ms: 10 }),
];
console.log('pending right after add:', s.pending);
await Promise.resolve();
console.log('pending after first pump:', s.pending);
const results = await Promise.allSettled(jobs);
console.log(s.timeline.join('\n'));
console.log(results.map((r) => (r.status === 'fulfilled' ? r.value : `ERR ${r.reason.message}`)));
console.log('elapsed looks right:', Date.now() - s.t0 >= 120);
const done = [];
await Promise.all([
  new Promise((r) => setTimeout(() => { done.push('30ms'); r(); }, 30)),
  new Promise((r) => setTimeout(() => { done.push('10ms'); r(); }, 10)),
  new Promise((r) => setTimeout(() => { done.push('20ms'); r(); }, 20)),
]);
console.log(done);
