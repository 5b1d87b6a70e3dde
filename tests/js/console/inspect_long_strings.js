console.log({ text: 'first line\nsecond line\nthird line that makes the whole string long' });
console.log({ text: 'no line breaks here but it is much longer than the eighty column break length' });
console.log(['short\nbreaks']);
console.log('top level\nstring is raw');
console.log([['nested one level deeper with a line break\nand more text after it to be long']]);
