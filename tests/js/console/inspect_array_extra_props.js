const arr = [1, 2];
arr.label = 'extra';
arr[Symbol('s')] = true;
console.log(arr);
const empty = [];
empty.only = 'prop';
console.log(empty);
