console.log(new Uint8Array([1, 2, 3]));
console.log(new Int16Array(0), new Float64Array([0.5, -0, NaN]));
console.log(new BigInt64Array([1n, -2n]));
console.log(new Uint8Array(120));
console.log(new Float32Array([1.5, 2.25]), new Uint8ClampedArray(2));
console.log({ bytes: new Uint8Array([255, 0]) });
