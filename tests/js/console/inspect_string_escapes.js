console.log(['tab\there', 'new\nline', 'cr\r', 'back\\slash', '\x00\x07\x1b', '\x7f\x85\x9f']);
console.log(['\ud800 lone high', 'lone low \udc00', '\ud83d\ude00 pair', 'é ü 日本']);
console.log({ 'key\nwith newline': 1, [Symbol("sym'quote")]: 2 });
