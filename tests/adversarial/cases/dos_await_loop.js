for (;;) await null;
