return (2n ** 10000000n).toString(16).length;
