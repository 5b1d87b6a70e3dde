for (;;) console.error('spam on stderr');
