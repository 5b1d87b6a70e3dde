module.exports = { name: require('path').basename(__dirname) };
