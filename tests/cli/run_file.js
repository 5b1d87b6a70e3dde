// A script file: its output, then its returned value as JSON.
const greeting = 'hello';
console.log(greeting, 'from a file');
console.error('a line on stderr');
return { greeting, length: greeting.length };
