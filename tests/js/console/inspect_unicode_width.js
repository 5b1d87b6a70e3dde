console.log(['日本', '中文字符', 'abc', 'défi', '한국어', 'x', 'y', 'z']);
console.log(Array.from({ length: 10 }, (_, i) => '字'.repeat(i % 3 + 1)));
