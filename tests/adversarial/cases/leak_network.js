const names = ['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource', 'Request',
  'Response', 'Headers', 'navigator', 'RTCPeerConnection', 'BroadcastChannel',
  'MessageChannel', 'Worker', 'SharedWorker', 'Socket', 'net', 'http', 'dgram'];
return names.filter((n) => n in globalThis);
