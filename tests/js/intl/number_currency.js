// NumberFormat currency style: symbols, codes, names, digits, accounting.
const codes = ['USD', 'EUR', 'GBP', 'JPY', 'CNY', 'INR', 'CAD', 'AUD', 'CHF', 'KRW', 'BRL', 'MXN',
  'HKD', 'NZD', 'SEK', 'NOK', 'DKK', 'SGD', 'RUB', 'ZAR', 'TRY', 'PLN', 'ILS', 'THB', 'TWD',
  'IDR', 'PHP', 'VND', 'CZK', 'HUF', 'AED', 'KWD', 'XAF', 'XOF', 'XYZ', 'usd'];
for (const c of codes) {
  const row = [];
  for (const display of ['symbol', 'narrowSymbol', 'code', 'name']) {
    const nf = new Intl.NumberFormat('en-US', { style: 'currency', currency: c, currencyDisplay: display });
    row.push(JSON.stringify([nf.format(1234.567), nf.format(-1), nf.format(1)]));
  }
  console.log(c, row.join(' '));
  console.log('   digits', new Intl.NumberFormat('en', { style: 'currency', currency: c }).resolvedOptions().maximumFractionDigits);
}
for (const display of ['symbol', 'code', 'name']) {
  for (const sign of ['standard', 'accounting']) {
    for (const signDisplay of ['auto', 'always', 'never', 'exceptZero', 'negative']) {
      const nf = new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', currencyDisplay: display, currencySign: sign, signDisplay });
      console.log(display, sign, signDisplay, JSON.stringify([1, -1, 0, -0, 1234.5, -0.001].map((v) => nf.format(v))));
    }
  }
}
const jp = new Intl.NumberFormat('en', { style: 'currency', currency: 'JPY', maximumFractionDigits: 0 });
console.log(jp.format(1234.5), jp.format(1), new Intl.NumberFormat('en', { style: 'currency', currency: 'JPY', currencyDisplay: 'name' }).format(1));
console.log(new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', currencyDisplay: 'name', maximumFractionDigits: 0 }).format(1));
console.log(new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', minimumFractionDigits: 0 }).format(5));
console.log(new Intl.NumberFormat('en', { style: 'currency', currency: 'EUR', maximumSignificantDigits: 3 }).format(12345.678));
console.log((5).toLocaleString('en-US', { style: 'currency', currency: 'GBP' }), (1e6).toLocaleString('en-US', { style: 'currency', currency: 'INR' }));
