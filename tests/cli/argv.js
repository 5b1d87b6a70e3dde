// The script's arguments and environment, as capsa run gives them.
console.log(JSON.stringify(process.argv.slice(1)));
return process.env;
