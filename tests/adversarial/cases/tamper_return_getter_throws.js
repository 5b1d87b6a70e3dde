return { ok: 1, get bad() { throw new Error('getter in the value'); } };
