// The same tool under every spelling of its name is decided as one: a name given
// with '.' where it was registered with '/' (or the other way, or flat) cannot dodge
// the pattern or its constraint (incidents/create: minutes >= 20, one call), and
// look-alike separators name no tool at all.
const out = [];
for (const name of ['incidents.create', 'incidents/create', 'incidents_create']) {
  try { await tools.call(name, { service: 'api', minutes: 5 }); out.push('CREATED'); }
  catch (e) { out.push(e.code); }
}
console.log('small', out.join(' '));
const odd = [];
for (const name of ['incidents:create', 'incidents\uff0ecreate', 'incidents//create',
                    'incidents./create', 'Incidents.create', 'incidents.create.', '.incidents.create',
                    'incidents\u002fcreate\u0000', 'incidents.*', 'incidents.**']) {
  try { await tools.call(name, { service: 'api', minutes: 30 }); odd.push('CREATED'); }
  catch (e) { odd.push(e.code); }
}
console.log('odd', odd.join(' '));
// Valid for the schema and the policy: allowed once, by any spelling; then spent.
const a = await tools.call('incidents.create', { service: 'api', minutes: 30 });
let again;
try { await incidents_create({ service: 'api', minutes: 31 }); again = 'CREATED'; }
catch (e) { again = e.code; }
console.log('once', a !== null && typeof a === 'object', again);
// Invalid for the schema: refused before the policy, whatever the spelling.
const bad = [];
for (const args of [{ service: 'api', minutes: '30' }, { service: 'api' }, { minutes: 30 }]) {
  try { await tools.call('incidents/create', args); bad.push('CREATED'); }
  catch (e) { bad.push(e.code); }
}
console.log('schema', bad.join(' '));
