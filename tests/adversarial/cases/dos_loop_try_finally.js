for (;;) {
  try {
    while (true) {}
  } finally {
    continue;
  }
}
