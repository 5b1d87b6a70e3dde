// An uncaught error ends the run with status 1 and is printed once on stderr as
// "Name: message", then the frames of its stack (none here: they would name this
// file's absolute path). The message is Node's; Node also shows the source line.
Error.stackTraceLimit = 0;
console.log('loading settings');
const settings = JSON.parse('{"theme": null}');
console.log(settings.theme.name);
console.log('never printed');
