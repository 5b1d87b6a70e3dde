// Regular expressions over 5 MB of log text, as an agent searches and edits tool
// output: a global match of e-mail addresses, an exec loop with captures over the
// error lines, a replace with a pattern (IP addresses masked) and one with a
// function (durations in microseconds), and a test per line. The text is 1,000
// lines made once and repeated; the counts the regexes find are checked against
// what was put in, and the script throws if one is wrong. benchResult is a
// checksum both runners print.

function regexCheck(cond, what) {
    if (!cond)
        throw new Error('regex_5mb: wrong result: ' + what);
}

var regexLevels = ['INFO', 'DEBUG', 'WARN', 'INFO', 'ERROR', 'INFO', 'DEBUG'];
var regexBase = [];
var regexErrors = 0, regexIpDigits = 0, regexMsDigits = 0;
for (var i = 0; i < 1000; i++) {
    var level = regexLevels[i % 7];
    var ip = '10.' + (i % 256) + '.' + (i * 7 % 256) + '.' + (i * 13 % 256);
    var ms = (i * 37 % 5000) / 10;
    if (level === 'ERROR')
        regexErrors++;
    // The masked IP keeps its first two parts and prints x.x for the others.
    regexIpDigits += String(i * 7 % 256).length + String(i * 13 % 256).length - 2;
    regexMsDigits += String(Math.round(ms * 1000)).length - String(ms).length;
    regexBase.push('2024-03-' + String(1 + i % 28).padStart(2, '0') + 'T12:' +
        String(i % 60).padStart(2, '0') + ':05.123Z ' + level + ' [worker-' + (i % 8) +
        '] user' + i + '.name+tag@example' + (i % 10) + '.com ' + (i % 3 ? 'GET' : 'POST') +
        ' /api/v1/items/' + (i * 7919 % 10000) + '?sort=asc&page=' + (i % 17) + ' ' +
        (level === 'ERROR' ? 500 : 200) + ' ' + ms + 'ms ip=' + ip + ' padding-to-make-the-line-longer\n');
}
var regexUnit = regexBase.join('');
var regexCopies = Math.ceil(5e6 / regexUnit.length);
var regexText = regexUnit.repeat(regexCopies);
var regexLines = 1000 * regexCopies;

var regexEmails = regexText.match(/[\w.+-]+@[\w-]+\.[a-z]{2,}/g);
regexCheck(regexEmails.length === regexLines, regexEmails.length + ' e-mail addresses');

var regexRe = /^(\S+) ERROR \[(worker-\d)\] \S+ (GET|POST) (\/[^?\s]+)\S* (\d{3}) ([\d.]+)ms/gm;
var regexFound = 0, regexSum = 0, m;
while ((m = regexRe.exec(regexText)) !== null) {
    regexFound++;
    regexSum += m[2].length + m[4].length + Number(m[5]) + m[6].length;
}
regexCheck(regexFound === regexErrors * regexCopies, regexFound + ' error lines');

var regexMasked = regexText.replace(/\b(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}\b/g, '$1.$2.x.x');
regexCheck(regexMasked.length === regexText.length - regexIpDigits * regexCopies,
    'the masked text is ' + regexMasked.length + ' characters');
regexCheck(!/ip=\d+\.\d+\.\d+\.\d/.test(regexMasked), 'an IP address is left');

var regexMicros = regexMasked.replace(/ ([\d.]+)ms /g, function (_, v) {
    return ' ' + Math.round(Number(v) * 1000) + 'us ';
});
regexCheck(regexMicros.length === regexMasked.length + regexMsDigits * regexCopies,
    'the text in microseconds is ' + regexMicros.length + ' characters');

var regexPosts = 0;
var regexAll = regexMicros.split('\n');
for (var i = 0; i < regexAll.length; i++)
    if (/ POST \/api\/v1\/items\/\d+/.test(regexAll[i]))
        regexPosts++;
regexCheck(regexPosts === Math.ceil(1000 / 3) * regexCopies, regexPosts + ' POST lines');
var benchResult = regexText.length + regexFound + regexSum + regexMicros.length + regexPosts;
