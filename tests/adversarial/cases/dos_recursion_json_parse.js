const n = 1e6;
return JSON.parse('['.repeat(n) + ']'.repeat(n));
