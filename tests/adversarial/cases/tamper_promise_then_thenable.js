// Returning a promise resolves the run with it, and resolution looks up `then`
// as the language says: a replaced then is called, and what it throws rejects.
Promise.prototype.then = function () { throw new Error('then replaced'); };
return Promise.resolve(1);
