// Extract fields from log lines with named groups, count by level, find slow requests.
const log = `2024-05-01T12:00:01Z INFO  [api] GET /users/42 200 13ms
2024-05-01T12:00:02Z WARN  [api] GET /users/43 404 5ms
2024-05-01T12:00:03Z ERROR [db] query timeout after 3000ms (table=orders)
2024-05-01T12:00:04Z INFO  [api] POST /orders 201 250ms
2024-05-01T12:00:05Z INFO  [api] GET /health 200 1ms
2024-05-01T12:00:06Z ERROR [api] GET /orders/7 500 1203ms
garbage line`;

const re = /^(?<ts>\S+)\s+(?<level>[A-Z]+)\s+\[(?<mod>\w+)\]\s+(?<msg>.*)$/;
const entries = log.split('\n').map((l) => l.match(re)?.groups).filter(Boolean);
console.log(entries.length, 'parsed');
const levels = {};
for (const { level } of entries) levels[level] = (levels[level] || 0) + 1;
console.log(levels);

const reqRe = /(?<method>GET|POST|PUT|DELETE) (?<path>\S+) (?<status>\d{3}) (?<ms>\d+)ms/;
const requests = entries.flatMap((e) => {
  const m = reqRe.exec(e.msg);
  return m ? [{ ...m.groups, status: +m.groups.status, ms: +m.groups.ms }] : [];
});
console.table(requests);
const slow = requests.filter((r) => r.ms > 100).map((r) => `${r.method} ${r.path} (${r.ms}ms)`);
console.log('slow:', slow);

const ids = [...log.matchAll(/\/(\w+)\/(\d+)/g)].map((m) => [m[1], Number(m[2]), m.index]);
console.log(ids);
const redacted = log.split('\n')[2].replace(/\d+ms/g, (m) => '#'.repeat(m.length));
console.log(redacted);
console.log('2024-05-01T12:00:03Z'.replace(/(\d{4})-(\d{2})-(\d{2})T.*/, '$3/$2/$1'));
console.log(/timeout after (\d+)ms \((\w+)=(\w+)\)/.exec(log).slice(1));
