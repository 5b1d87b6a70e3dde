// A promise chain that schedules itself again forever: the run never gets
// past its microtask queue.
function again() {
  Promise.resolve().then(again);
}
again();
