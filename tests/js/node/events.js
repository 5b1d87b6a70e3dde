// node:events: EventEmitter, its listener order and errors, events.once and events.on.
const EventEmitter = require('node:events');
const { once, on, EventEmitter: Named } = EventEmitter;
console.log(Named === EventEmitter, require('events') === EventEmitter, EventEmitter.defaultMaxListeners);
const e = new EventEmitter();
const log = [];
const a = (x) => log.push(`a${x}`);
e.on('ev', a);
e.prependListener('ev', (x) => log.push(`first${x}`));
e.once('ev', (x) => log.push(`once${x}`));
e.prependOnceListener('ev', (x) => log.push(`pre-once${x}`));
console.log(e.emit('ev', 1), e.emit('ev', 2), e.emit('none'));
console.log(log.join(' '), e.listenerCount('ev'), e.eventNames());
e.off('ev', a);
console.log(e.listenerCount('ev'), e.listeners('ev').length, e.rawListeners('ev').length);
e.removeAllListeners('ev');
console.log(e.listenerCount('ev'), e.getMaxListeners());
e.on('newListener', (name) => log.push(`new:${String(name)}`));
e.on('x', () => {});
console.log(log.at(-1));
try {
  e.emit('error', new Error('boom'));
} catch (err) {
  console.log('thrown:', err.message);
}
try {
  e.emit('error', 'just a string');
} catch (err) {
  console.log('thrown:', err.code, err.message);
}
e.on('error', (err) => console.log('handled:', err.message));
e.emit('error', new Error('caught'));
try {
  e.on('x', 'not a function');
} catch (err) {
  console.log(err.code, err.message);
}
const warned = new EventEmitter();
warned.setMaxListeners(1);
warned.on('w', () => {});
warned.on('w', () => {});
class Sub extends EventEmitter {
  constructor() {
    super();
    this.name = 'sub';
  }
}
const s = new Sub();
s.on('hi', function () { console.log('this is emitter:', this === s, this.name); });
s.emit('hi');
function Legacy() { EventEmitter.call(this); }
Object.setPrototypeOf(Legacy.prototype, EventEmitter.prototype);
const l = new Legacy();
l.on('k', (v) => console.log('legacy', v));
l.emit('k', 'works');
const sym = Symbol('s');
l.on(sym, () => console.log('symbol event'));
l.emit(sym);
console.log(l.eventNames());
(async () => {
  setTimeout(() => e.emit('later', 1, 2), 1);
  console.log('once:', await once(e, 'later'));
  const src = new EventEmitter();
  setTimeout(() => {
    src.emit('data', 'x');
    src.emit('data', 'y');
    src.emit('error', new Error('stop'));
  }, 1);
  try {
    for await (const [v] of on(src, 'data')) console.log('on:', v);
  } catch (err) {
    console.log('on ended:', err.message);
  }
})();
