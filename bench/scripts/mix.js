// Object, string, JSON and regular-expression work: builds records, round-trips a
// structure of about 100 KB through JSON, splits and joins text and runs regular
// expressions over it. benchResult is a checksum both runners print.

function makeRecords(n) {
    var out = [];
    for (var i = 0; i < n; i++) {
        out.push({
            id: i,
            name: 'user' + i,
            email: 'user' + i + '@example.com',
            tags: ['tag' + (i % 7), 'group' + (i % 11)],
            score: ((i * 37) % 101) / 7,
            active: i % 3 === 0,
            address: { city: 'City' + (i % 50), zip: String(10000 + i) },
        });
    }
    return out;
}

function jsonRounds(records, rounds) {
    var sum = 0;
    for (var r = 0; r < rounds; r++) {
        var text = JSON.stringify(records);
        var back = JSON.parse(text);
        sum += text.length + back.length + back[back.length - 1].id;
    }
    return sum;
}

function makeText(records) {
    var text = '';
    for (var i = 0; i < records.length; i++) {
        var r = records[i];
        text += 'Record ' + r.id + ': ' + r.name + ' <' + r.email + '> lives in ' +
            r.address.city + ' ' + r.address.zip + ', score ' + r.score.toFixed(2) + '\n';
    }
    return text;
}

function stringWork(text) {
    var lines = text.split('\n');
    var words = 0;
    for (var i = 0; i < lines.length; i++) {
        var parts = lines[i].split(' ');
        words += parts.length;
        lines[i] = parts.reverse().join(' ').toUpperCase();
    }
    return words + lines.join('\n').length;
}

function regexWork(text) {
    var emails = text.match(/[\w.+-]+@[\w-]+\.[\w.]+/g);
    var masked = text.replace(/\d+/g, function (d) { return '#' + d.length; });
    var cities = 0;
    var re = /lives in (City\d+) (\d{5})/g;
    var m;
    while ((m = re.exec(text)) !== null)
        cities += m[1].length + Number(m[2]) % 7;
    return emails.length + masked.length + cities;
}

function mixRound() {
    var records = makeRecords(600);
    var byCity = {};
    for (var i = 0; i < records.length; i++) {
        var c = records[i].address.city;
        byCity[c] = (byCity[c] || 0) + records[i].score;
    }
    var text = makeText(records);
    return jsonRounds(records, 4) + stringWork(text) + regexWork(text) +
        Object.keys(byCity).length;
}

var benchResult = 0;
for (var round = 0; round < 6; round++)
    benchResult += mixRound();
