// A returned value whose serialisation never ends.
return new Proxy({}, { ownKeys() { for (;;) {} } });
