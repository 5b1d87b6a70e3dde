// Dates and numbers formatted for people, as an agent writes a report: 100,000
// timestamps, each through Date (toISOString and a date made of its UTC fields),
// and every tenth of them through Intl: 5,000 dates with Intl.DateTimeFormat and
// 5,000 amounts with Intl.NumberFormat (currency). In capsa, Intl is the guest's
// own, in JS (guest/intl.js), some 30 µs a format: 100,000 Intl formats would
// take seconds a run. QuickJS has no Intl: the native reference (and
// quickjs-emscripten) evaluate the same guest/intl.js first. The script checks its
// own result (chosen values against what Node.js prints for them, the total
// length) and throws if one is wrong; benchResult is a checksum both runners print.

function intlCheck(cond, what) {
    if (!cond)
        throw new Error('date_intl: wrong result: ' + what);
}

var intlDates = new Intl.DateTimeFormat('en-US', {
    timeZone: 'UTC', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit',
});
var intlMoney = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
var intlLength = 0, intlIso = 0, intlFirst = [];
for (var i = 0; i < 100000; i++) {
    var d = new Date(1577836800000 + i * 26280000 + (i % 1000) * 1000);
    var iso = d.toISOString();
    var ymd = d.getUTCFullYear() + '/' + String(d.getUTCMonth() + 1).padStart(2, '0') + '/' +
        String(d.getUTCDate()).padStart(2, '0');
    intlIso += iso.length;
    intlLength += ymd.length;
    if (i % 10 === 0) {
        var s = i % 20 === 0 ? intlDates.format(d) : intlMoney.format((i * 7919 % 1000000) / 100);
        intlLength += s.length;
        if (i < 40)
            intlFirst.push(s, iso, ymd);
    }
}
intlCheck(intlIso === 100000 * 24, 'ISO strings of ' + intlIso + ' characters');
var intlExpected = ['Jan 1, 2020, 12:00 AM', '2020-01-01T00:00:00.000Z', '2020/01/01',
    '$791.90', '2020-01-04T01:00:10.000Z', '2020/01/04',
    'Jan 7, 2020, 02:00 AM', '2020-01-07T02:00:20.000Z', '2020/01/07',
    '$2,375.70', '2020-01-10T03:00:30.000Z', '2020/01/10'];
intlCheck(JSON.stringify(intlFirst) === JSON.stringify(intlExpected), 'the first values are ' +
    JSON.stringify(intlFirst));
var benchResult = intlLength + intlIso;
