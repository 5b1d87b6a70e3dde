// stdout and stderr are separate streams; the value goes to stdout, last.
console.log('out 1');
console.error('err 1');
console.warn('err 2');
console.info('out 2');
return 'value';
