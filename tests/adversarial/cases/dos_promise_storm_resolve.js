for (;;) Promise.resolve();
