// Merge log lines whose timestamps come in the formats people and tools write
// (ISO, "2024-03-07 10:00", "03/07/2024", "Mar 7, 2024 10:30 PM", Date#toString
// output), sort them, and point at fields with the RegExp `d` flag's match indices.
const lines = [
  '[2024-03-07 10:00:00] api    INFO  request id=17 took 120ms',
  '[Mar 7, 2024 10:30 PM] worker WARN  queue depth 42 above 40',
  '[03/07/2024 09:15] cron   INFO  nightly job started',
  '[2024/03/07 23:05] worker ERROR job id=17 failed: timeout after 30000ms',
  '[Thu Mar 07 2024 11:00:00 GMT+0100] api INFO  deploy v1.4.2',
  '[2024-03-07T08:00:00Z] api    INFO  service up',
  '[7 March 2024 12:00] billing INFO  invoice id=99 sent',
  '[March 7, 2024] audit  INFO  daily audit opened',
  '[someday] api DEBUG this line has no usable date',
];
const lineRe = /^\[(?<when>[^\]]+)\]\s+(?<source>\w+)\s+(?<level>[A-Z]+)\s+(?<message>.*)$/d;
const entries = [];
for (const line of lines) {
  const m = lineRe.exec(line);
  if (!m) continue;
  const time = Date.parse(m.groups.when);
  if (Number.isNaN(time)) {
    console.log('skipped (bad date):', JSON.stringify(m.groups.when), 'at columns', m.indices.groups.when.join('-'));
    continue;
  }
  entries.push({ time, ...m.groups, messageAt: m.indices.groups.message[0] });
}
entries.sort((a, b) => a.time - b.time);
for (const e of entries) {
  console.log(new Date(e.time).toISOString(), e.source.padEnd(8), e.level.padEnd(5), e.message);
}

// Underline the numbers in each message using the indices of every match.
const numberRe = /(?<n>\d+(?:\.\d+)*)(?<unit>ms|s)?/dg;
for (const e of entries.filter((x) => x.level !== 'INFO')) {
  const marks = Array(e.message.length).fill(' ');
  for (const m of e.message.matchAll(numberRe)) {
    const [start, end] = m.indices.groups.n;
    marks.fill('^', start, end);
    if (m.indices.groups.unit) marks.fill('~', ...m.indices.groups.unit);
  }
  console.log(e.message);
  console.log(marks.join('').trimEnd());
}

// Per hour summary, and a sample match as console.log shows it.
const perHour = {};
for (const e of entries) {
  const hour = new Date(e.time).getUTCHours().toString().padStart(2, '0') + ':00';
  perHour[hour] = (perHour[hour] ?? 0) + 1;
}
console.log(Object.entries(perHour).map(([h, n]) => `${h} ${n}`).join(' | '));
const sample = /id=(?<id>\d+)/d.exec(entries.find((e) => e.message.includes('id=')).message);
console.log(sample);
console.log(`span ${new Date(entries.at(-1).time) - new Date(entries[0].time)} ms, ${entries.length} entries`);
