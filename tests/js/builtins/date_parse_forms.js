// Date.parse and new Date(string) of the forms V8 accepts besides ISO 8601. They are
// local time, which is UTC in the sandbox (this output is Node's with TZ=UTC), unless
// they name an offset. ISO strings: a date alone is UTC, a date and time local.
const forms = [
  '2024-03-07 10:00',
  '2024-03-07 10:00:00',
  '2024-03-07 10:00:00.250',
  '2024/03/07',
  '2024/03/07 10:00',
  '2024/3/7 9:05:01',
  'March 7, 2024',
  'Mar 7, 2024 10:30:00',
  'mar 7 2024',
  '7 March 2024',
  '7-Mar-2024',
  'Thu Mar 07 2024 10:00:00 GMT+0100',
  'Thu Mar 07 2024 10:00:00 GMT+0000 (Coordinated Universal Time)',
  'Thu, 07 Mar 2024 10:00:00 GMT',
  'March 7, 2024 10:00 PM',
  'March 7, 2024 12:00 AM',
  'March 7, 2024 12:30 pm',
  '03/07/2024',
  '3/7/24',
  '3/7/99',
  '12/31/1999 23:59:59',
  'Dec 25, 1995',
  'December 17, 1995 03:24:00',
  'Sunday, March 10, 2024',
  '2024-03-07 10:00 +0530',
  '2024-03-07 10:00 UTC',
  '2024-03-07 10:00 Z',
  '2024-03-07 10:00 EST',
  '2024-03-07 10:00 PDT',
  'Mar 7 2024 10:00 GMT-5',
  '2024-03-07 24:00',
  'March 7',
  '3/7',
  // ISO forms
  '2024-03-07',
  '2024-03',
  '2024',
  '2024-03-07T10:00',
  '2024-03-07T10:00:00Z',
  '2024-03-07T10:00:00.123+01:00',
  '+002024-03-07T00:00:00Z',
  // not dates
  '',
  'March',
  'hello',
  '2024-03-07 25:00',
  '13/45/2024',
  'Mar 7 2024 foo',
  'March 7, 2024 PM',
  '2024-03-07T10:00:00+5',
];
for (const s of forms) {
  const t = Date.parse(s);
  const d = new Date(s);
  console.log(JSON.stringify(s).padEnd(68), Number.isNaN(t) ? 'NaN' : d.toISOString(), t === d.getTime() || (Number.isNaN(t) && Number.isNaN(d.getTime())));
}
console.log(String(new Date('March 7, 2024 10:00 PM')));
console.log(new Date('2024/03/07').getDate(), new Date('03/07/2024').getMonth(), new Date('7 March 2024').getFullYear());
// toString and toUTCString output parses back to the same time.
const now = new Date(Date.UTC(2024, 6, 4, 18, 30, 15));
console.log(Date.parse(now.toString()) === now.getTime(), Date.parse(now.toUTCString()) === now.getTime());
