// A __proto__ key is an ordinary key on the host: it cannot supply a parameter the
// schema requires and the policy constrains (minutes >= 20): the host's schema check
// finds it missing before the policy is asked, and the guest's prototypes stay clean.
const args = JSON.parse('{"service": "api", "__proto__": {"minutes": 100}}');
let code;
try { await tools.incidents.create(args); } catch (e) { code = e.code; }
console.log(code, ({}).minutes === undefined);
Object.prototype.minutes = 99;
try { await tools.incidents.create({ service: 'api' }); console.log('CREATED'); }
catch (e) { console.log(e.code); }
delete Object.prototype.minutes;
