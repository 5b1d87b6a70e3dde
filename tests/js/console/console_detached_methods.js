const { log, error } = console;
log('log without this');
error('error without this');
['a', 'b'].forEach((item) => console.log(item));
[1, 2].forEach(console.log);
