// __proto__ in JSON is an own key, never the prototype.
const o = JSON.parse('{"__proto__": {"polluted": 1}, "a": {"__proto__": {"polluted": 2}}}');
const copy = Object.assign({}, o);
const merged = { ...o };
return [({}).polluted, o.polluted, Object.keys(o), Object.getPrototypeOf(o) === Object.prototype,
  copy.polluted, merged.polluted, Object.getPrototypeOf(o.a) === Object.prototype];
