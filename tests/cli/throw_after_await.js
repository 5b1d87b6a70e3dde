async function load() {
  await null;
  throw new Error('async failure');
}
async function main() {
  return await load();
}
await main();
