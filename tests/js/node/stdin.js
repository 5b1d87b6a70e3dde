// Standard input through process.stdin in flowing mode ('data' and 'end' events) with
// an encoding that splits no character, its properties (fd, isTTY of a file,
// readableEncoding), and fs.readFileSync(0) at its end (empty).
const fs = require('node:fs');
const stdin = process.stdin;
console.log(stdin.fd, stdin.isTTY, typeof stdin.on, typeof stdin[Symbol.asyncIterator]);
console.log(stdin.readableEncoding, stdin.isPaused());
stdin.setEncoding('utf8');
console.log(stdin.readableEncoding);
let text = '';
const events = [];
stdin.on('data', (chunk) => {
  if (events[events.length - 1] !== 'data') events.push('data');
  text += chunk;
});
stdin.on('end', () => {
  events.push('end');
  console.log(JSON.stringify(text), typeof text);
  console.log(text.split('\n').length, [...text].length);
  // At the end, fd 0 holds nothing more.
  console.log(JSON.stringify(fs.readFileSync(0, 'utf8')));
  console.log(events.join(' '), stdin.readableEnded);
});
console.log('before any data');
