// A thrown symbol is shown as the console shows it.
throw Symbol('sym');
