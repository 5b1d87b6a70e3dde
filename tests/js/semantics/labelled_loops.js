// Labelled break and continue, labelled blocks, and loop forms.
const found = [];
outer: for (let i = 0; i < 4; i++) {
  for (let j = 0; j < 4; j++) {
    if (j === 2) continue outer;
    if (i === 3) break outer;
    found.push(`${i}${j}`);
  }
}
console.log(found.join(' '));

let steps = 0;
search: while (true) {
  do {
    steps++;
    if (steps === 5) break search;
  } while (true);
}
console.log('steps', steps);

block: {
  console.log('in block');
  if (steps > 0) break block;
  console.log('never printed');
}

const grid = [[1, 2], [3, 4], [5, 6]];
let firstOver = null;
rows: for (const row of grid) {
  for (const cell of row) {
    if (cell > 3) {
      firstOver = cell;
      break rows;
    }
  }
}
console.log('first over 3:', firstOver);

const keys = [];
props: for (const k in { a: 1, b: 2, c: 3 }) {
  switch (k) {
    case 'b':
      continue props;
    default:
      keys.push(k);
  }
}
console.log(keys);

// switch fall-through, and a break inside switch leaving only the switch.
const fall = [];
for (const n of [1, 2, 3]) {
  switch (n) {
    case 1:
      fall.push('one');
    case 2:
      fall.push('one-or-two');
      break;
    default:
      fall.push('other');
  }
}
console.log(fall);

// for-in order: integer keys ascending, then strings in insertion order.
const o = { b: 1, 2: 'two', a: 2, 1: 'one', [Symbol('s')]: 3 };
const order = [];
for (const k in o) order.push(k);
console.log(order, Object.keys(o), JSON.stringify(o));

// for-in visits inherited enumerable keys; deleted keys are skipped.
const parent = { inherited: true };
const child = Object.create(parent);
child.own = 1;
child.later = 2;
const visited = [];
for (const k in child) {
  if (k === 'own') delete child.later;
  visited.push(k);
}
console.log(visited);
