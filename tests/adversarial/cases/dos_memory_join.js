return new Array(1e7).join('abc').length;
