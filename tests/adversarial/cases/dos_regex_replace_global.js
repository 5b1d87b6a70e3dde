// Catastrophic backtracking at every position of a global replace.
return ('x'.repeat(28) + '!').replace(/(x+x+)+y/g, 'z');
