for (;;) Promise.resolve().then(() => {});
