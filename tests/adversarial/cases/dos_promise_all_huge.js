return (await Promise.all(new Array(1e7).fill(0))).length;
