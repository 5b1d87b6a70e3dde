// The run's script as an ES module: static imports of built-in modules and of files
// next to it (put into the sandbox with --file), top-level await, and process.exitCode.
import path, { basename } from 'node:path';
import { EventEmitter } from 'events';
import shout, { twice, counter } from './lib.mjs';
import config from './config.cjs';

const e = new EventEmitter();
e.on('hello', (who) => console.log(shout(`hello ${who}`)));
e.emit('hello', config.name);
console.log(twice(21), counter.loads, basename(import.meta.url), path.dirname(import.meta.filename));
await new Promise((resolve) => setTimeout(resolve, 1));
console.log('after top-level await');
process.exitCode = 4;
