// Array work over 100,000 objects, as an agent reshapes the records a tool
// returned: map, filter, sort by a number and by a string, reduce into groups,
// flatMap, find and some/every. The script checks its own result (counts, sums
// against plain loops, the sort orders) and throws if one is wrong; benchResult is
// a checksum both runners print.

function arrayCheck(cond, what) {
    if (!cond)
        throw new Error('array_100k: wrong result: ' + what);
}

var arrayDepts = ['sales', 'support', 'eng', 'ops', 'legal', 'hr', 'finance', 'marketing', 'it',
    'research', 'design', 'data'];
var arrayRecords = Array.from({ length: 100000 }, function (_, i) {
    return {
        id: i,
        name: 'user' + (i * 7919 % 100000),
        dept: arrayDepts[i % 12],
        age: 18 + (i * 31 % 50),
        salary: 30000 + (i * 7919 % 90000),
        active: i % 3 !== 0,
        tags: ['t' + (i % 5), 'g' + (i % 9)],
    };
});

var arrayActive = arrayRecords.filter(function (r) { return r.active; });
arrayCheck(arrayActive.length === 66666, arrayActive.length + ' active records');
var arrayRows = arrayActive.map(function (r) {
    return { id: r.id, dept: r.dept, pay: Math.round(r.salary * 1.1), label: r.name + ' (' + r.dept + ')' };
});
var arrayByPay = arrayRows.slice().sort(function (a, b) { return b.pay - a.pay || a.id - b.id; });
var arrayByLabel = arrayRows.slice().sort(function (a, b) {
    return a.label < b.label ? -1 : a.label > b.label ? 1 : a.id - b.id;
});
for (var i = 1; i < arrayRows.length; i++) {
    var p = arrayByPay[i - 1], q = arrayByPay[i];
    arrayCheck(p.pay > q.pay || (p.pay === q.pay && p.id < q.id), 'the order by pay at ' + i);
    arrayCheck(arrayByLabel[i - 1].label <= arrayByLabel[i].label, 'the order by label at ' + i);
}
var arrayTotals = arrayRows.reduce(function (acc, r) {
    var g = acc[r.dept] || (acc[r.dept] = { count: 0, pay: 0 });
    g.count++;
    g.pay += r.pay;
    return acc;
}, {});
var arrayLoopPay = 0;
for (var i = 0; i < arrayRows.length; i++)
    arrayLoopPay += arrayRows[i].pay;
var arrayGroupPay = Object.values(arrayTotals).reduce(function (s, g) { return s + g.pay; }, 0);
arrayCheck(arrayGroupPay === arrayLoopPay, 'the groups sum to ' + arrayGroupPay + ', not ' + arrayLoopPay);
arrayCheck(Object.keys(arrayTotals).length === 8, 'groups: ' + Object.keys(arrayTotals).length);
var arrayTags = arrayActive.flatMap(function (r) { return r.tags; });
arrayCheck(arrayTags.length === 2 * 66666, arrayTags.length + ' tags');
var arrayTagCount = arrayTags.filter(function (t) { return t === 't0'; }).length;
var arrayOld = arrayRecords.find(function (r) { return r.age === 67 && r.dept === 'eng'; });
arrayCheck(arrayRecords.every(function (r) { return r.age >= 18 && r.age < 68; }), 'an age out of range');
arrayCheck(arrayRows.some(function (r) { return r.pay > 128000; }), 'no pay over 128000');
var arrayTop = arrayByPay.slice(0, 10).map(function (r) { return r.id; });
var benchResult = [arrayLoopPay, arrayTagCount, arrayOld ? arrayOld.id : -1, arrayTop,
    arrayByLabel[0].label, arrayByLabel[arrayByLabel.length - 1].label];
