for (;;) console.log('spam spam spam');
