// JSON of about 1 MB: builds a document as an API would return it (records with
// strings, integers, fractions, booleans, null, nested arrays and objects, escaped
// and non-ASCII text), stringifies it, parses it, stringifies it again with
// indentation and parses that. benchResult is a checksum both runners print.

function makeDocument(n) {
    var items = [];
    for (var i = 0; i < n; i++) {
        items.push({
            id: 100000 + i,
            sku: 'SKU-' + (i * 7919 % 100000),
            title: 'Item ' + i + ' "limited" edition \\ caf\u00e9 \u2603',
            price: ((i * 37) % 10000) / 100,
            stock: i % 5 === 0 ? null : (i * 13) % 250,
            available: i % 4 !== 0,
            tags: ['t' + (i % 7), 'g' + (i % 11), 'c' + (i % 13)],
            dims: { w: i % 40, h: (i * 3) % 55, d: 1.5 + (i % 9) },
            note: i % 6 === 0 ? 'line one\nline two\ttabbed' : '',
        });
    }
    return { version: 3, generated: '2021-03-27T00:00:00Z', count: n, items: items };
}

function checksum(doc) {
    var sum = doc.count + doc.items.length;
    for (var i = 0; i < doc.items.length; i += 97)
        sum += doc.items[i].id + (doc.items[i].stock || 0) + doc.items[i].title.length;
    return sum;
}

var text = JSON.stringify(makeDocument(5200));
var doc = JSON.parse(text);
var pretty = JSON.stringify(doc, null, 2);
var back = JSON.parse(pretty);
var benchResult = text.length + pretty.length + checksum(doc) + checksum(back);
