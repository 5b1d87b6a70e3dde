console.log('100%% done', 'extra');
console.log('%c styled %c text', 'color: red', 'font-weight: bold');
console.log('%x is not a specifier', 1);
console.log('ends with %', 1);
console.log('%%s stays', 'next');
console.log('no args: %s %d %%');
