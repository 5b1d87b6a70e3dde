// Just under the engine's own cap on buffer sizes: memory is the limit.
return new Uint8Array(2 ** 31 - 1).length;
