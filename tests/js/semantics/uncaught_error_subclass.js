// An uncaught error of a class that names itself in its constructor: stderr shows its
// "Name: message" once (the frames are left out, as they would name this file's path).
Error.stackTraceLimit = 0;
class ConfigError extends Error {
  constructor(key) {
    super(`missing key '${key}'`);
    this.name = 'ConfigError';
  }
}
console.log('checking');
throw new ConfigError('apiUrl');
