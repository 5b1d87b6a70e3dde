// Graph algorithms on a service dependency map: BFS, shortest path, topological sort, cycles.
const deps = {
  web: ['api', 'cdn'],
  api: ['auth', 'db', 'cache'],
  auth: ['db'],
  worker: ['db', 'queue'],
  queue: [],
  cache: [],
  db: [],
  cdn: [],
};
function bfs(graph, start) {
  const dist = { [start]: 0 }, parent = {}, order = [];
  const queue = [start];
  while (queue.length) {
    const node = queue.shift();
    order.push(node);
    for (const next of graph[node] ?? []) {
      if (!(next in dist)) { dist[next] = dist[node] + 1; parent[next] = node; queue.push(next); }
    }
  }
  return { order, dist, parent };
}
const r = bfs(deps, 'web');
console.log(r.order, r.dist);
const pathTo = (parent, target) => { const p = [target]; while (parent[p[0]]) p.unshift(parent[p[0]]); return p; };
console.log(pathTo(r.parent, 'db').join(' -> '));

function topo(graph) {
  const indeg = Object.fromEntries(Object.keys(graph).map((k) => [k, 0]));
  for (const vs of Object.values(graph)) for (const v of vs) indeg[v]++;
  const ready = Object.keys(indeg).filter((k) => indeg[k] === 0).sort();
  const out = [];
  while (ready.length) {
    const n = ready.shift();
    out.push(n);
    for (const v of graph[n]) if (--indeg[v] === 0) { ready.push(v); ready.sort(); }
  }
  return out.length === Object.keys(graph).length ? out : null;
}
console.log('build order:', topo(deps).reverse());
const cyclic = { ...deps, db: ['web'] };
console.log('cyclic topo:', topo(cyclic));
function findCycle(graph) {
  const state = {}, stack = [];
  const dfs = (n) => {
    state[n] = 1; stack.push(n);
    for (const v of graph[n] ?? []) {
      if (state[v] === 1) return [...stack.slice(stack.indexOf(v)), v];
      if (!state[v]) { const c = dfs(v); if (c) return c; }
    }
    state[n] = 2; stack.pop();
    return null;
  };
  for (const n of Object.keys(graph)) if (!state[n]) { const c = dfs(n); if (c) return c; }
  return null;
}
console.log(findCycle(cyclic), findCycle(deps));

const grid = ['S.#.....', '.##.###.', '....#...', '.##...#E'];
const H = grid.length, W = grid[0].length;
const find = (ch) => { const y = grid.findIndex((row) => row.includes(ch)); return [y, grid[y].indexOf(ch)]; };
const [sy, sx] = find('S'), [ey, ex] = find('E');
const seen = new Map([[`${sy},${sx}`, null]]);
const q = [[sy, sx]];
while (q.length) {
  const [y, x] = q.shift();
  if (y === ey && x === ex) break;
  for (const [dy, dx] of [[0, 1], [1, 0], [0, -1], [-1, 0]]) {
    const ny = y + dy, nx = x + dx, k = `${ny},${nx}`;
    if (ny >= 0 && ny < H && nx >= 0 && nx < W && grid[ny][nx] !== '#' && !seen.has(k)) { seen.set(k, `${y},${x}`); q.push([ny, nx]); }
  }
}
const path = [];
for (let k = `${ey},${ex}`; k; k = seen.get(k)) path.unshift(k);
console.log('steps:', path.length - 1);
const board = grid.map((row) => [...row]);
for (const k of path.slice(1, -1)) { const [y, x] = k.split(',').map(Number); board[y][x] = '*'; }
console.log(board.map((row) => row.join('')).join('\n'));
