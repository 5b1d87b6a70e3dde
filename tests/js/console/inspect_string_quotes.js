console.log(['plain', "it's", 'say "hi"', "it's \"both\"", "all ' \" `", "it's \"${x}\""]);
console.log({ key: 'value', 'needs quotes': "it's" });
