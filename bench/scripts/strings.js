// String building, as an agent writes a report or a prompt: template literals with
// expressions and method calls, += in a loop, an array joined, a tagged template
// escaping HTML, padStart/padEnd, toFixed, slice, indexOf, split and
// toUpperCase. The script checks its own result (lengths known by construction,
// chosen rows, the escapes) and throws if one is wrong; benchResult is a checksum
// both runners print.

function stringsCheck(cond, what) {
    if (!cond)
        throw new Error('strings: wrong result: ' + what);
}

function stringsHtml(parts) {
    var out = parts[0];
    for (var i = 1; i < arguments.length; i++)
        out += String(arguments[i]).replace(/[&<>"]/g, function (c) {
            return c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;';
        }) + parts[i];
    return out;
}

// A table of 10,000 rows of fixed width, built with +=.
var stringsTable = '';
for (var i = 0; i < 10000; i++) {
    var name = 'user' + (i % 1000);
    var score = (i * 37 % 10000) / 100;
    stringsTable += `| ${String(i).padStart(6)} | ${name.padEnd(10)} | ${score.toFixed(2).padStart(6)} | ${i % 2 ? 'yes' : 'no '} |\n`;
}
stringsCheck(stringsTable.length === 10000 * 39, 'the table is ' + stringsTable.length + ' characters');
stringsCheck(stringsTable.slice(39 * 1234, 39 * 1235) === '|   1234 | user234    |  56.58 | no  |\n',
    'row 1234 is ' + JSON.stringify(stringsTable.slice(39 * 1234, 39 * 1235)));

// Messages of a prompt, built as parts and joined.
var stringsParts = [];
for (var i = 0; i < 30000; i++) {
    var role = i % 3 === 0 ? 'user' : 'assistant';
    stringsParts.push(`${role.toUpperCase()}: message ${i} of ${30000}, about item #${i * 7919 % 10000} ` +
        `(${(i % 7 === 0) ? 'urgent' : 'normal'})`);
}
var stringsPrompt = stringsParts.join('\n');
var stringsUrgent = 0, stringsAt = 0;
while ((stringsAt = stringsPrompt.indexOf('(urgent)', stringsAt)) !== -1) {
    stringsUrgent++;
    stringsAt += 8;
}
stringsCheck(stringsUrgent === Math.ceil(30000 / 7), stringsUrgent + ' urgent messages');
stringsCheck(stringsPrompt.split('\n').length === 30000, 'the prompt has the wrong number of lines');

// HTML of 20,000 list items through a tagged template.
var stringsList = [];
for (var i = 0; i < 20000; i++)
    stringsList.push(stringsHtml`<li data-id="${i}">${'Tom & "Jerry" <' + i + '>'}</li>`);
var stringsPage = `<ul>\n${stringsList.join('\n')}\n</ul>`;
stringsCheck(stringsList[7] === '<li data-id="7">Tom &amp; &quot;Jerry&quot; &lt;7&gt;</li>',
    'item 7 is ' + stringsList[7]);
stringsCheck(stringsPage.indexOf('<') === 0 && stringsPage.split('&amp;').length === 20001,
    'the page has the wrong escapes');

var benchResult = stringsTable.length + stringsPrompt.length + stringsPage.length + stringsUrgent;
