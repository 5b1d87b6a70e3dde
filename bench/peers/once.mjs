// One sandbox of a peer in a process of its own: new sandbox, 1+1, dispose, print
// the value. What bench/peers/process.mjs times per run, as `capsa run -e`.
//   node once.mjs ENGINE      (BENCH_NODE_MODULES: where the npm packages are)
import { loadEngine } from './engines.mjs';

const engine = await loadEngine(process.argv[2], process.env.BENCH_NODE_MODULES);
const sb = engine.newSandbox();
console.log(sb.read('1+1'));
sb.dispose();
