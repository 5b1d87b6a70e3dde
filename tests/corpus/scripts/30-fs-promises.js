// Async file work with fs/promises: parallel writes, JSON lines, and error handling.
const fsp = await import('fs/promises');
const dir = 'jobs-30';
await fsp.mkdir(dir, { recursive: true });
const jobs = Array.from({ length: 5 }, (_, i) => ({ id: `job-${i + 1}`, status: i % 2 ? 'done' : 'queued', attempts: i }));
await Promise.all(jobs.map((j) => fsp.writeFile(`${dir}/${j.id}.json`, JSON.stringify(j))));
const names = (await fsp.readdir(dir)).sort();
console.log(names);
const loaded = await Promise.all(names.map(async (n) => JSON.parse(await fsp.readFile(`${dir}/${n}`, 'utf8'))));
console.log(loaded.filter((j) => j.status === 'queued').map((j) => j.id));

const logPath = `${dir}/events.jsonl`;
for (const j of loaded) await fsp.appendFile(logPath, JSON.stringify({ id: j.id, event: 'seen' }) + '\n');
const events = (await fsp.readFile(logPath, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
console.log(events.length, events.at(-1));

const results = await Promise.allSettled([
  fsp.readFile(`${dir}/job-1.json`, 'utf8'),
  fsp.readFile(`${dir}/job-99.json`, 'utf8'),
  fsp.readdir(`${dir}/nested/missing`),
]);
console.log(results.map((r) => (r.status === 'fulfilled' ? `ok ${r.value.length} chars` : `${r.reason.code} ${r.reason.syscall}`)));

await fsp.rename(`${dir}/job-1.json`, `${dir}/archived-job-1.json`);
await fsp.rm(`${dir}/job-2.json`);
const stat = await fsp.stat(`${dir}/archived-job-1.json`);
console.log(stat.isFile(), stat.size, typeof stat.mtimeMs);
console.log((await fsp.readdir(dir)).sort());
const exists = async (p) => fsp.access(p).then(() => true, () => false);
console.log(await exists(`${dir}/job-2.json`), await exists(`${dir}/job-3.json`));
await fsp.writeFile(`${dir}/bin.dat`, new Uint8Array([0, 1, 2, 250]));
const bin = await fsp.readFile(`${dir}/bin.dat`);
console.log(bin.length, [...bin], await fsp.readFile(`${dir}/job-3.json`, { encoding: 'utf8' }));
await fsp.rm(dir, { recursive: true });
console.log(await exists(dir));
