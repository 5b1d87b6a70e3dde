export const counter = { loads: 0 };
counter.loads++;
export const twice = (x) => 2 * x;
export default (s) => `${s.toUpperCase()}!`;
