function show() { console.log(arguments); }
show(1, 'two', { three: 3 });
show();
