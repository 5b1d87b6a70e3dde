// 10 MB of JSON, as an agent gets it from an API and sends it on: the text of an
// array of 50,000 records (strings, integers, fractions, booleans, null, nested
// arrays and objects, escaped and non-ASCII text) is parsed and the result
// stringified again. The text is made outside the timed part's main cost: 5,000
// records stringified once and repeated ten times (the records' ids differ per
// copy). The script checks its own result (the round trip gives back the same text,
// the record count and a sum over the parsed records) and throws if it is wrong;
// benchResult is a checksum both runners print.

function jsonRecords(first, n) {
    var items = [];
    for (var i = first; i < first + n; i++) {
        items.push({
            id: 100000 + i,
            sku: 'SKU-' + (i * 7919 % 100000),
            title: 'Item ' + i + ' "limited" edition \\ caf\u00e9 \u2603',
            price: ((i * 37) % 10000) / 100,
            stock: i % 5 === 0 ? null : (i * 13) % 250,
            available: i % 4 !== 0,
            tags: ['t' + (i % 7), 'g' + (i % 11), 'c' + (i % 13)],
            dims: { w: i % 40, h: (i * 3) % 55, d: 1.5 + (i % 9) },
            note: i % 6 === 0 ? 'line one\nline two\ttabbed' : 'plain text of a longer note, ' + i,
        });
    }
    return items;
}

function jsonText() {
    var chunk = JSON.stringify(jsonRecords(0, 5000)).slice(1, -1);
    var parts = [];
    for (var c = 0; c < 10; c++)
        parts.push(chunk.replace(/"id":1/g, '"id":' + (c + 1)));
    return '[' + parts.join(',') + ']';
}

function jsonCheck(cond, what) {
    if (!cond)
        throw new Error('json_10mb: wrong result: ' + what);
}

var jsonIn = jsonText();
var jsonDoc = JSON.parse(jsonIn);
var jsonOut = JSON.stringify(jsonDoc);
jsonCheck(jsonIn.length > 10e6, 'the text is ' + jsonIn.length + ' characters');
jsonCheck(jsonDoc.length === 50000, jsonDoc.length + ' records');
jsonCheck(jsonOut === jsonIn, 'stringify(parse(text)) is not the text');
var jsonSum = 0;
for (var i = 0; i < jsonDoc.length; i += 101)
    jsonSum += jsonDoc[i].id + (jsonDoc[i].stock || 0) + jsonDoc[i].tags.length + jsonDoc[i].dims.w;
// Copy c of record i has the id (c + 1) followed by the digits of 100000 + i but its first.
jsonCheck(jsonDoc[49999].id === 1004999, 'the last id is ' + jsonDoc[49999].id);
var benchResult = jsonOut.length + jsonSum;
