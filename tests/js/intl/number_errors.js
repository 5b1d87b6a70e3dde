// NumberFormat bad input: RangeError and TypeError as Node throws them.
function t(label, fn) {
  try {
    console.log(label, '->', fn());
  } catch (e) {
    console.log(label, '->', e.name + ': ' + e.message);
  }
}
t('style bogus', () => new Intl.NumberFormat('en', { style: 'bogus' }));
t('currency missing', () => new Intl.NumberFormat('en', { style: 'currency' }));
t('currency US', () => new Intl.NumberFormat('en', { style: 'currency', currency: 'US' }));
t('currency 1234', () => new Intl.NumberFormat('en', { style: 'currency', currency: 'U$D' }));
t('currencyDisplay', () => new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', currencyDisplay: 'x' }));
t('currencySign', () => new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', currencySign: 'x' }));
t('maxFD 101', () => new Intl.NumberFormat('en', { maximumFractionDigits: 101 }));
t('maxFD -1', () => new Intl.NumberFormat('en', { maximumFractionDigits: -1 }));
t('minFD > maxFD', () => new Intl.NumberFormat('en', { minimumFractionDigits: 3, maximumFractionDigits: 1 }));
t('maxSD 0', () => new Intl.NumberFormat('en', { maximumSignificantDigits: 0 }));
t('maxSD 22', () => new Intl.NumberFormat('en', { maximumSignificantDigits: 22 }));
t('minSD > maxSD', () => new Intl.NumberFormat('en', { minimumSignificantDigits: 5, maximumSignificantDigits: 2 }));
t('minID 0', () => new Intl.NumberFormat('en', { minimumIntegerDigits: 0 }));
t('minID NaN', () => new Intl.NumberFormat('en', { minimumIntegerDigits: 'abc' }));
t('notation', () => new Intl.NumberFormat('en', { notation: 'weird' }));
t('compactDisplay', () => new Intl.NumberFormat('en', { notation: 'compact', compactDisplay: 'medium' }));
t('signDisplay', () => new Intl.NumberFormat('en', { signDisplay: 'sometimes' }));
t('useGrouping', () => new Intl.NumberFormat('en', { useGrouping: 'min3' }));
t('roundingMode', () => new Intl.NumberFormat('en', { roundingMode: 'up' }));
t('roundingIncrement 3', () => new Intl.NumberFormat('en', { roundingIncrement: 3 }));
t('roundingIncrement fd', () => new Intl.NumberFormat('en', { roundingIncrement: 5, maximumFractionDigits: 2 }));
t('roundingPriority', () => new Intl.NumberFormat('en', { roundingPriority: 'most' }));
t('trailingZeroDisplay', () => new Intl.NumberFormat('en', { trailingZeroDisplay: 'never' }));
t('localeMatcher', () => new Intl.NumberFormat('en', { localeMatcher: 'fuzzy' }));
t('options null', () => new Intl.NumberFormat('en', null));
t('locale bad', () => new Intl.NumberFormat('en_US'));
t('locale empty', () => new Intl.NumberFormat(''));
t('locale number item', () => new Intl.NumberFormat([5]));
t('locale null item', () => new Intl.NumberFormat(['en', null]));
t('format symbol', () => new Intl.NumberFormat().format(Symbol('x')));
t('format getter on proto', () => Intl.NumberFormat.prototype.format);
t('resolvedOptions on {}', () => Intl.NumberFormat.prototype.resolvedOptions.call({}).locale);
t('formatToParts on {}', () => Intl.NumberFormat.prototype.formatToParts.call({}, 1));
t('toLocaleString bad', () => (5).toLocaleString('en', { maximumFractionDigits: 500 }));
t('toLocaleString on string', () => Number.prototype.toLocaleString.call('5'));
t('BigInt toLocaleString bad', () => (5n).toLocaleString('en', { style: 'nope' }));
t('formatRange NaN', () => new Intl.NumberFormat().formatRange(NaN, 1));
t('formatRange missing', () => new Intl.NumberFormat().formatRange(1));
t('call without new', () => Intl.NumberFormat('en', { style: 'percent' }).format(0.5));
t('numeric options as strings', () => new Intl.NumberFormat('en', { maximumFractionDigits: '1', minimumIntegerDigits: '2.9' }).format(3.14159));
