for (let i = 0; i < 10000; i++) Promise.reject(new Error('rejected ' + i));
return 'end';
