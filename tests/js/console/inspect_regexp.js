console.log(/abc/, /a\/b/gi, new RegExp('x+', 'm'), new RegExp(''));
console.log({ re: /^\d+$/u });
console.log(Object.assign(/x/y, { extra: 1 }));
