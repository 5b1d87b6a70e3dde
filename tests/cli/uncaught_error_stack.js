// An uncaught error prints "Name: message" once, then its frames; so does
// console.error of a caught one. The name set by the class's constructor is the
// one its stack starts with, as in Node.
class ConfigError extends Error {
  constructor(key) {
    super(`missing key '${key}'`);
    this.name = 'ConfigError';
  }
}
function load(key) {
  throw new ConfigError(key);
}
try {
  load('port');
} catch (err) {
  console.error(err);
}
load('apiUrl');
