console.log('log to stdout');
console.info('info to stdout');
console.debug('debug to stdout');
console.dirxml('dirxml to stdout');
console.warn('warn to stderr');
console.error('error to stderr', { code: 1 });
