Error.stackTraceLimit = 0;
console.trace();
console.trace('message %d', 1, { extra: true });
console.group('grouped');
console.trace('indented');
console.groupEnd();
