const { proxy, revoke } = Proxy.revocable({}, {});
revoke();
throw proxy;
