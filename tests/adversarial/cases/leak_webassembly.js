// The guest cannot compile code of its own to WebAssembly.
return [typeof WebAssembly, 'WebAssembly' in globalThis];
