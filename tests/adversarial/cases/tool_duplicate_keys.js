// A duplicate key could let the policy check one value and the tool get another:
// the host refuses the text before the policy or the tool sees it.
let code;
try { await tools.call('incidents/create', '{"minutes": 30, "minutes": 5, "service": "api"}'); }
catch (e) { code = e.code; }
const log = fs.readFileSync('/log/actions.jsonl', 'utf8');
console.log(code, /"decision":"allowed"/.test(log));
