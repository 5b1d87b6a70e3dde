// The thrown error is printed by the capsa command: --max-output must bound it.
throw new Error('m'.repeat(10 * 1024 * 1024));
