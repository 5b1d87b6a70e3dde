console.log('x'.repeat(16 * 1024 * 1024));
return 'done';
