// eval and Function work, and see the same global object as the script: nothing more.
const g1 = (0, eval)('this');
const g2 = new Function('return this')();
const g3 = eval('globalThis');
const async = await new (Object.getPrototypeOf(async function () {}).constructor)('return typeof process')();
const gen = Object.getPrototypeOf(function* () {}).constructor('yield typeof require')().next().value;
return [g1 === globalThis, g2 === globalThis, g3 === globalThis, async, gen,
  eval('typeof __capsa'), new Function('return typeof __capsaWeb')(),
  (0, eval)('typeof std + typeof os')];
