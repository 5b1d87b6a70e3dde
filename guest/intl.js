// capsa guest runtime: the global `Intl` (QuickJS 2021 has none) and the locale-sensitive
// methods built on it, printing what Node.js v20 prints for en-US. Evaluated once, last,
// as a global script when the guest image is made.
//
// Scope and the ways it differs from Node (the goldens in tests/js/intl leave these out):
// - One locale: English as spoken in the United States. "en" and "en-US" resolve to
//   themselves (PluralRules, like V8, resolves "en-US" to "en"); every other locale falls
//   back to "en-US": resolvedOptions().locale is then "en-US" where Node names the locale
//   it has data for, and supportedLocalesOf() keeps only "en" and "en-US". Of the Unicode
//   extension keywords, nu-latn and ca-gregory are kept, "kn"/"kf" set Collator options and
//   "hc" the hour cycle; the others are dropped. Only the "latn" numbering system and the
//   "gregory" calendar exist, and Intl.supportedValuesOf() lists only what is here.
// - Time zones: "UTC" (also "Etc/UTC", "GMT", "Etc/GMT", "UCT", "Zulu", ... in any case) is
//   the only one, and it is the default: the sandbox's clock has no local zone. Any other
//   IANA name throws RangeError "Invalid time zone specified", where Node accepts it.
// - DateTimeFormat uses CLDR's en-US patterns as ICU's pattern generator resolves them for
//   every combination of weekday, era, year, month and day, and rules for the time fields
//   that give ICU's result for every combination with contiguous fields (hour, hour and
//   minute, hour to second, minute and second, second alone, each with fractional seconds,
//   time zone names and day periods). ICU's odd appendix forms for gaps are partly
//   reproduced: hour with second but no minute prints "3 PM (second: 5)", but fractional
//   seconds without seconds, and a 2-digit 24-hour hour with seconds only, print plain
//   fields where ICU prints forms such as "03 (second: 5)" or "├F14: 067┤".
//   formatRange prints both dates in full ("1/2/2024 – 1/5/2024") where ICU would share
//   common fields ("Jan 2 – 5, 2024"); equal dates print once, as in ICU.
// - NumberFormat rounds the exact decimal value of the shortest representation of a Number
//   (as ICU does: 1.005 with two fraction digits is "1.01"), and numeric strings exactly.
//   Styles decimal, percent and currency; the unit style throws RangeError. Currency
//   symbols and names cover the common currencies; other well-formed codes print as their
//   code. formatRange does not share affixes: "$1.00 – $5.00" as in ICU, but compact
//   currency ranges print "$1K – $5K" where ICU prints "$1–5K".
// - Collator implements the Unicode collation algorithm over a table of ICU's root order
//   for Latin (Basic, Latin-1, Extended-A and -B), Greek and Cyrillic letters, digits,
//   punctuation and the common symbols, with canonical and compatibility decompositions
//   and ICU's expansions of ß, æ, œ. Characters outside that table sort by their general
//   category (punctuation, symbols, digits by value, Latin letters after z) and then by
//   code point; where ICU gives such a letter its own place (ʃ after s, Han by radical and
//   stroke) the order differs.
// - Intl.Locale, Intl.DisplayNames and Intl.Segmenter are not provided.

(function () {
  'use strict';

  const {
    defineProperty, defineProperties, create: objectCreate, keys: objectKeys,
  } = Object;
  const uncurry = (fn) => Function.prototype.call.bind(fn);
  const numberToString = uncurry(Number.prototype.toString);
  const bigintToString = uncurry(BigInt.prototype.toString);
  const dateGetTime = uncurry(Date.prototype.getTime);
  const stringNormalize = uncurry(String.prototype.normalize);
  const isFiniteNumber = Number.isFinite;
  const BigIntCtor = BigInt;

  // Internal slots of every Intl object, keyed by the object; a missing entry is a
  // receiver of the wrong kind.
  const slots = new WeakMap();

  const hidden = (value) => ({ value, writable: true, enumerable: false, configurable: true });
  const tag = (proto, name) => defineProperty(proto, Symbol.toStringTag, {
    value: name, writable: false, enumerable: false, configurable: true,
  });

  // ---------------------------------------------------------------------------
  // Options (ECMA-402 GetOption and friends, with V8's error messages)
  // ---------------------------------------------------------------------------

  function toObjectOptions(options, service) {
    if (options === undefined) return objectCreate(null);
    if (options === null) throw new TypeError(`${service} called on null or undefined`);
    return Object(options);
  }

  function getOption(options, prop, type, values, fallback, service) {
    let value = options[prop];
    if (value === undefined) return fallback;
    if (type === 'boolean') {
      value = Boolean(value);
    } else {
      if (typeof value === 'symbol') throw new TypeError('Cannot convert a Symbol value to a string');
      value = String(value);
    }
    if (values !== undefined && !values.includes(value)) {
      throw new RangeError(`Value ${value} out of range for ${service} options property ${prop}`);
    }
    return value;
  }

  function defaultNumberOption(value, min, max, fallback, prop) {
    if (value === undefined) return fallback;
    value = Number(value);
    if (Number.isNaN(value) || value < min || value > max) {
      throw new RangeError(`${prop} value is out of range.`);
    }
    return Math.floor(value);
  }

  const getNumberOption = (options, prop, min, max, fallback) =>
    defaultNumberOption(options[prop], min, max, fallback, prop);

  // ---------------------------------------------------------------------------
  // Locales
  // ---------------------------------------------------------------------------

  const LANGUAGE_ALIASES = {
    iw: 'he', in: 'id', ji: 'yi', jw: 'jv', mo: 'ro', tl: 'fil', sh: 'sr-Latn', no: 'nb',
  };

  // Parses a BCP 47 language tag; returns its canonical form, or undefined when the tag
  // is not well formed.
  function canonicalizeTag(tag) {
    if (!/^[A-Za-z0-9-]+$/.test(tag)) return undefined;
    // Tags that pass the structural check but that ICU refuses get a message of their own.
    const invalid = () => {
      throw new RangeError('Invalid language tag: ' + tag);
    };
    if (/^[A-Za-z]{2,8}(-[A-Za-z0-9]+)*-$/.test(tag)) invalid();
    const subtags = tag.toLowerCase().split('-');
    let i = 0;
    const out = [];
    const lang = subtags[i];
    if (!/^([a-z]{2,3}|[a-z]{5,8})$/.test(lang)) return undefined;
    out.push(lang);
    i++;
    if (i < subtags.length && /^[a-z]{4}$/.test(subtags[i])) {
      out.push(subtags[i][0].toUpperCase() + subtags[i].slice(1));
      i++;
    }
    if (i < subtags.length && /^([a-z]{2}|[0-9]{3})$/.test(subtags[i])) {
      out.push(subtags[i].toUpperCase());
      i++;
    }
    const variants = [];
    while (i < subtags.length && /^([a-z0-9]{5,8}|[0-9][a-z0-9]{3})$/.test(subtags[i])) {
      if (variants.includes(subtags[i])) invalid();
      variants.push(subtags[i]);
      i++;
    }
    out.push(...variants.sort());
    const extensions = [];
    const singletons = [];
    let privateUse = '';
    while (i < subtags.length) {
      const singleton = subtags[i];
      if (!/^[a-z0-9]$/.test(singleton)) return undefined;
      if (singleton === 'x') {
        if (i + 1 >= subtags.length) return undefined;
        const rest = subtags.slice(i + 1);
        if (!rest.every((s) => /^[a-z0-9]{1,8}$/.test(s))) return undefined;
        privateUse = 'x-' + rest.join('-');
        break;
      }
      if (singletons.includes(singleton)) return undefined;
      singletons.push(singleton);
      i++;
      const body = [];
      while (i < subtags.length && /^[a-z0-9]{2,8}$/.test(subtags[i])) body.push(subtags[i++]);
      if (body.length === 0) {
        if (i === subtags.length || /^[a-z0-9]$/.test(subtags[i])) invalid();
        return undefined;
      }
      extensions.push({ singleton, body });
    }
    if (out[0] === 'x') return undefined;
    extensions.sort((a, b) => (a.singleton < b.singleton ? -1 : 1));
    for (const { singleton, body } of extensions) {
      out.push(singleton, ...(singleton === 'u' ? canonicalUnicodeExtension(body) : body));
    }
    if (privateUse) out.push(privateUse);
    const alias = LANGUAGE_ALIASES[out[0]];
    if (alias) out.splice(0, 1, ...alias.split('-'));
    // "en-US-posix" is spelled with a Unicode extension in CLDR.
    const posix = out.indexOf('posix');
    if (posix > 0 && out[posix - 1] === 'US') {
      out.splice(posix, 1);
      out.push('u', 'va', 'posix');
    }
    return out.join('-');
  }

  // Sorts the keywords of a -u- extension by key and drops "true" values.
  function canonicalUnicodeExtension(body) {
    const attributes = [];
    let j = 0;
    while (j < body.length && body[j].length !== 2) attributes.push(body[j++]);
    const keywords = [];
    while (j < body.length) {
      const key = body[j++];
      const types = [];
      while (j < body.length && body[j].length !== 2) types.push(body[j++]);
      if (!keywords.some((k) => k.key === key)) keywords.push({ key, types });
    }
    keywords.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const out = attributes;
    for (const { key, types } of keywords) {
      out.push(key);
      if (!(types.length === 1 && types[0] === 'true')) out.push(...types);
    }
    return out;
  }

  function canonicalizeLocaleList(locales) {
    if (locales === undefined) return [];
    if (locales === null) throw new TypeError('Cannot convert undefined or null to object');
    const seen = [];
    const list = typeof locales === 'string' ? [locales] : Object(locales);
    const len = typeof locales === 'string' ? 1 : Math.min(Math.max(Number(list.length) || 0, 0), 2 ** 32 - 1);
    for (let k = 0; k < len; k++) {
      if (!(k in list)) continue;
      const value = list[k];
      if (typeof value !== 'string' && (typeof value !== 'object' || value === null)) {
        throw new TypeError('Language ID should be string or object.');
      }
      const canonical = canonicalizeTag(String(value));
      if (canonical === undefined) throw new RangeError('Incorrect locale information provided');
      if (!seen.includes(canonical)) seen.push(canonical);
    }
    return seen;
  }

  // The supported locale a request resolves to ("en" or "en-US"), and the keywords of its
  // -u- extension.
  function resolveLocale(locales) {
    const requested = canonicalizeLocaleList(locales);
    const result = { locale: 'en-US', keywords: {}, matched: false };
    if (requested.length === 0) return result;
    const tag = requested[0];
    const u = tag.indexOf('-u-');
    const baseName = (u < 0 ? tag : tag.slice(0, u)).replace(/-x-.*$/, '');
    if (baseName === 'en' || baseName === 'en-US') {
      result.locale = baseName;
      result.matched = true;
      if (u >= 0) {
        const body = tag.slice(u + 3).replace(/-[a-z0-9]-.*$/, '').split('-');
        let key = null;
        for (const s of body) {
          if (s.length === 2) {
            key = s;
            result.keywords[key] = 'true';
          } else if (key) {
            result.keywords[key] = result.keywords[key] === 'true' ? s : result.keywords[key] + '-' + s;
          }
        }
      }
    }
    return result;
  }

  function supportedLocalesOf(locales, options, service) {
    const requested = canonicalizeLocaleList(locales);
    if (options !== undefined) {
      getOption(toObjectOptions(options, service), 'localeMatcher', 'string',
        ['lookup', 'best fit'], 'best fit', service);
    }
    return requested.filter((tag) => {
      const base = tag.replace(/-u-.*$/, '');
      return base === 'en' || base === 'en-US';
    });
  }

  // The resolved locale with the keywords of its request that the service supports
  // (nu-latn, ca-gregory) and those it took a setting from (extra: [key, value] pairs).
  const extendedLocale = (resolved, supported, extra) => {
    const pairs = extra ? extra.slice() : [];
    for (const key of objectKeys(supported)) {
      if (resolved.keywords[key] === supported[key] && !pairs.some((p) => p[0] === key)) {
        pairs.push([key, supported[key]]);
      }
    }
    pairs.sort((a, b) => (a[0] < b[0] ? -1 : 1));
    return withExtension(resolved.locale, pairs);
  };

  const withExtension = (locale, pairs) => {
    const parts = pairs.filter(([, v]) => v !== undefined)
      .map(([k, v]) => (v === 'true' ? k : `${k}-${v}`));
    return parts.length ? `${locale}-u-${parts.join('-')}` : locale;
  };

  // ---------------------------------------------------------------------------
  // Exact decimals: { coef: BigInt >= 0, exp } is coef * 10^exp; the sign is kept apart.
  // ---------------------------------------------------------------------------

  const TEN = BigIntCtor(10);
  const pow10 = (n) => TEN ** BigIntCtor(n);
  const ZERO = BigIntCtor(0);
  const ONE = BigIntCtor(1);

  function decimalFromString(s) {
    const m = /^(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
    const int = m[1] || '';
    const frac = m[2] || '';
    const digits = (int + frac).replace(/^0+/, '');
    return {
      coef: digits ? BigIntCtor(digits) : ZERO,
      exp: (m[3] ? Number(m[3]) : 0) - frac.length,
    };
  }

  // The exact decimal of the shortest representation of |x| (x finite).
  const decimalFromNumber = (x) => decimalFromString(numberToString(Math.abs(x)));

  // Number of decimal digits of the integer n >= 0 (1 for zero).
  const digitCount = (n) => bigintToString(n).length;

  // Exponent of the leading digit (0 for zero).
  const magnitude = (d) => (d.coef === ZERO ? 0 : digitCount(d.coef) - 1 + d.exp);

  const shift = (d, n) => ({ coef: d.coef, exp: d.exp + n });

  // Rounds to a multiple of increment * 10^exp under an ECMA-402 rounding mode.
  function roundDecimal(d, exp, increment, mode, negative) {
    if (d.exp >= exp && increment === 1) return d;
    let num = d.coef;
    let den = ONE;
    if (d.exp < exp) den = pow10(exp - d.exp);
    else num = d.coef * pow10(d.exp - exp);
    den *= BigIntCtor(increment);
    let q = num / den;
    const r = num % den;
    if (r !== ZERO) {
      const twice = r * BigIntCtor(2);
      const half = twice === den ? 0 : twice > den ? 1 : -1;
      let up;
      switch (mode) {
        case 'ceil': up = !negative; break;
        case 'floor': up = negative; break;
        case 'expand': up = true; break;
        case 'trunc': up = false; break;
        case 'halfCeil': up = half > 0 || (half === 0 && !negative); break;
        case 'halfFloor': up = half > 0 || (half === 0 && negative); break;
        case 'halfTrunc': up = half > 0; break;
        case 'halfEven': up = half > 0 || (half === 0 && q % BigIntCtor(2) === ONE); break;
        default: up = half >= 0;
      }
      if (up) q += ONE;
    }
    return { coef: q * BigIntCtor(increment), exp };
  }

  // Integer and fraction digit strings of d with at least minFraction fraction digits
  // (trailing zeros beyond that are dropped).
  function decimalDigits(d, minFraction, minInteger) {
    let s = bigintToString(d.coef);
    let int;
    let frac;
    if (d.exp >= 0) {
      int = d.coef === ZERO ? '0' : s + '0'.repeat(d.exp);
      frac = '';
    } else {
      const n = -d.exp;
      if (s.length <= n) s = '0'.repeat(n - s.length + 1) + s;
      int = s.slice(0, s.length - n);
      frac = s.slice(s.length - n);
    }
    let end = frac.length;
    while (end > minFraction && frac[end - 1] === '0') end--;
    frac = frac.slice(0, end).padEnd(minFraction, '0');
    int = int.replace(/^0+(?=\d)/, '');
    if (int.length < minInteger) int = int.padStart(minInteger, '0');
    return { int, frac };
  }

  // ---------------------------------------------------------------------------
  // Intl.NumberFormat
  // ---------------------------------------------------------------------------

  // code: [symbol, narrow symbol, fraction digits, name (one), name (other)]
  const CURRENCIES = {};
  for (const row of ('USD|$|$|2|US dollar|US dollars;EUR|€|€|2|euro|euros;' +
    'GBP|£|£|2|British pound|British pounds;JPY|¥|¥|0|Japanese yen|Japanese yen;' +
    'CNY|CN¥|¥|2|Chinese yuan|Chinese yuan;INR|₹|₹|2|Indian rupee|Indian rupees;' +
    'CAD|CA$|$|2|Canadian dollar|Canadian dollars;AUD|A$|$|2|Australian dollar|Australian dollars;' +
    'CHF|CHF|CHF|2|Swiss franc|Swiss francs;KRW|₩|₩|0|South Korean won|South Korean won;' +
    'BRL|R$|R$|2|Brazilian real|Brazilian reals;MXN|MX$|$|2|Mexican peso|Mexican pesos;' +
    'HKD|HK$|$|2|Hong Kong dollar|Hong Kong dollars;NZD|NZ$|$|2|New Zealand dollar|New Zealand dollars;' +
    'SEK|SEK|kr|2|Swedish krona|Swedish kronor;NOK|NOK|kr|2|Norwegian krone|Norwegian kroner;' +
    'DKK|DKK|kr|2|Danish krone|Danish kroner;SGD|SGD|$|2|Singapore dollar|Singapore dollars;' +
    'RUB|RUB|₽|2|Russian ruble|Russian rubles;ZAR|ZAR|R|2|South African rand|South African rand;' +
    'TRY|TRY|₺|2|Turkish lira|Turkish Lira;PLN|PLN|zł|2|Polish zloty|Polish zlotys;' +
    'ILS|₪|₪|2|Israeli new shekel|Israeli new shekels;THB|THB|฿|2|Thai baht|Thai baht;' +
    'TWD|NT$|$|2|New Taiwan dollar|New Taiwan dollars;IDR|IDR|Rp|0|Indonesian rupiah|Indonesian rupiahs;' +
    'MYR|MYR|RM|2|Malaysian ringgit|Malaysian ringgits;PHP|₱|₱|2|Philippine peso|Philippine pesos;' +
    'VND|₫|₫|0|Vietnamese dong|Vietnamese dong;CZK|CZK|Kč|2|Czech koruna|Czech korunas;' +
    'HUF|HUF|Ft|0|Hungarian forint|Hungarian forints;AED|AED|AED|2|UAE dirham|UAE dirhams;' +
    'SAR|SAR|SAR|2|Saudi riyal|Saudi riyals;ARS|ARS|$|2|Argentine peso|Argentine pesos;' +
    'CLP|CLP|$|0|Chilean peso|Chilean pesos;COP|COP|$|0|Colombian peso|Colombian pesos;' +
    'EGP|EGP|E£|2|Egyptian pound|Egyptian pounds;NGN|NGN|₦|2|Nigerian naira|Nigerian nairas;' +
    'PKR|PKR|Rs|0|Pakistani rupee|Pakistani rupees;UAH|UAH|₴|2|Ukrainian hryvnia|Ukrainian hryvnias;' +
    'KWD|KWD|KWD|3|Kuwaiti dinar|Kuwaiti dinars;BHD|BHD|BHD|3|Bahraini dinar|Bahraini dinars;' +
    'XAF|FCFA|FCFA|0|Central African CFA franc|Central African CFA francs;' +
    'XOF|F\u202fCFA|F\u202fCFA|0|West African CFA franc|West African CFA francs').split(';')) {
    const [code, symbol, narrow, digits, one, other] = row.split('|');
    CURRENCIES[code] = { symbol, narrow, digits: Number(digits), one, other };
  }

  const COMPACT_SHORT = ['', 'K', 'M', 'B', 'T'];
  const COMPACT_LONG = ['', ' thousand', ' million', ' billion', ' trillion'];
  const NBSP = '\u00a0';

  function NumberFormat(locales, options) {
    const nf = new.target === undefined ? objectCreate(NumberFormat.prototype) : this;
    return createNumberFormat(nf, locales, options, 'Intl.NumberFormat');
  }

  // InitializeNumberFormat; svc names the caller in error messages, as V8 does.
  function createNumberFormat(nf, locales, options, svc) {
    const resolved = resolveLocale(locales);
    options = toObjectOptions(options, 'Intl.NumberFormat');
    const s = { locale: extendedLocale(resolved, { nu: 'latn' }) };
    getOption(options, 'localeMatcher', 'string', ['lookup', 'best fit'], 'best fit', svc);
    const nu = getOption(options, 'numberingSystem', 'string', undefined, undefined, svc);
    if (nu !== undefined && !/^[a-zA-Z0-9]{3,8}(-[a-zA-Z0-9]{3,8})*$/.test(nu)) {
      throw new RangeError('Invalid numberingSystem : ' + nu);
    }
    s.style = getOption(options, 'style', 'string',
      ['decimal', 'percent', 'currency', 'unit'], 'decimal', svc);
    let currency = getOption(options, 'currency', 'string', undefined, undefined, svc);
    if (currency !== undefined && !/^[A-Za-z]{3}$/.test(currency)) {
      throw new RangeError('Invalid currency code : ' + currency);
    }
    const currencyDisplay = getOption(options, 'currencyDisplay', 'string',
      ['code', 'symbol', 'narrowSymbol', 'name'], 'symbol', svc);
    const currencySign = getOption(options, 'currencySign', 'string',
      ['standard', 'accounting'], 'standard', svc);
    const unit = getOption(options, 'unit', 'string', undefined, undefined, svc);
    getOption(options, 'unitDisplay', 'string', ['short', 'narrow', 'long'], 'short', svc);
    if (s.style === 'currency') {
      if (currency === undefined) throw new TypeError('Currency code is required with currency style.');
      s.currency = currency.toUpperCase();
      s.currencyDisplay = currencyDisplay;
      s.currencySign = currencySign;
    }
    if (s.style === 'unit') {
      if (unit === undefined) throw new TypeError('Unit is required with unit style.');
      throw new RangeError('Invalid unit argument for Intl.NumberFormat() \'' + unit + '\'');
    }
    s.notation = getOption(options, 'notation', 'string',
      ['standard', 'scientific', 'engineering', 'compact'], 'standard', svc);
    let mnfdDefault;
    let mxfdDefault;
    if (s.style === 'currency') {
      const info = CURRENCIES[s.currency];
      mnfdDefault = mxfdDefault = info ? info.digits : 2;
    } else {
      mnfdDefault = 0;
      mxfdDefault = s.style === 'percent' ? 0 : 3;
    }
    setDigitOptions(s, options, mnfdDefault, mxfdDefault, s.notation, svc);
    s.compactDisplay = getOption(options, 'compactDisplay', 'string', ['short', 'long'], 'short', svc);
    const defaultGrouping = s.notation === 'compact' ? 'min2' : 'auto';
    const grouping = options.useGrouping;
    if (grouping === undefined) {
      s.useGrouping = defaultGrouping;
    } else if (grouping === true || grouping === false || grouping === null || grouping === 0 || grouping === '') {
      s.useGrouping = grouping === true ? 'always' : false;
    } else {
      const g = String(grouping);
      if (g === 'true' || g === 'false') s.useGrouping = defaultGrouping;
      else if (['min2', 'auto', 'always'].includes(g)) s.useGrouping = g;
      else throw new RangeError(`Value ${g} out of range for Intl.NumberFormat options property useGrouping`);
    }
    s.signDisplay = getOption(options, 'signDisplay', 'string',
      ['auto', 'never', 'always', 'exceptZero', 'negative'], 'auto', svc);
    slots.set(nf, { kind: 'NumberFormat', ...s });
    return nf;
  }

  // SetNumberFormatDigitOptions: the rounding settings shared by NumberFormat and
  // PluralRules.
  function setDigitOptions(s, options, mnfdDefault, mxfdDefault, notation, svc) {
    s.minimumIntegerDigits = getNumberOption(options, 'minimumIntegerDigits', 1, 21, 1);
    const mnfd = options.minimumFractionDigits;
    const mxfd = options.maximumFractionDigits;
    const mnsd = options.minimumSignificantDigits;
    const mxsd = options.maximumSignificantDigits;
    const increment = getNumberOption(options, 'roundingIncrement', 1, 5000, 1);
    if (![1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000].includes(increment)) {
      throw new RangeError('roundingIncrement value is out of range.');
    }
    s.roundingIncrement = increment;
    s.roundingMode = getOption(options, 'roundingMode', 'string', ['ceil', 'floor', 'expand',
      'trunc', 'halfCeil', 'halfFloor', 'halfExpand', 'halfTrunc', 'halfEven'], 'halfExpand', svc);
    s.roundingPriority = getOption(options, 'roundingPriority', 'string',
      ['auto', 'morePrecision', 'lessPrecision'], 'auto', 'SetNumberFormatDigitOptions');
    s.trailingZeroDisplay = getOption(options, 'trailingZeroDisplay', 'string',
      ['auto', 'stripIfInteger'], 'auto', svc);
    if (increment !== 1) mxfdDefault = mnfdDefault;
    const hasSd = mnsd !== undefined || mxsd !== undefined;
    const hasFd = mnfd !== undefined || mxfd !== undefined;
    let needSd = true;
    let needFd = true;
    if (s.roundingPriority === 'auto') {
      needSd = hasSd;
      if (needSd || (!hasFd && notation === 'compact')) needFd = false;
    }
    if (needSd) {
      if (hasSd) {
        s.minimumSignificantDigits = defaultNumberOption(mnsd, 1, 21, 1, 'minimumSignificantDigits');
        s.maximumSignificantDigits = defaultNumberOption(mxsd, s.minimumSignificantDigits, 21, 21,
          'maximumSignificantDigits');
      } else {
        s.minimumSignificantDigits = 1;
        s.maximumSignificantDigits = 21;
      }
    }
    if (needFd) {
      if (hasFd) {
        let min = defaultNumberOption(mnfd, 0, 100, undefined, 'minimumFractionDigits');
        let max = defaultNumberOption(mxfd, 0, 100, undefined, 'maximumFractionDigits');
        if (min === undefined) min = Math.min(mnfdDefault, max);
        else if (max === undefined) max = Math.max(mxfdDefault, min);
        else if (min > max) throw new RangeError('maximumFractionDigits value is out of range.');
        s.minimumFractionDigits = min;
        s.maximumFractionDigits = max;
      } else {
        s.minimumFractionDigits = mnfdDefault;
        s.maximumFractionDigits = mxfdDefault;
      }
    }
    if (!needSd && !needFd) {
      s.minimumFractionDigits = 0;
      s.maximumFractionDigits = 0;
      s.minimumSignificantDigits = 1;
      s.maximumSignificantDigits = 2;
      s.roundingType = 'morePrecision';
      s.roundingPriority = 'morePrecision';
    } else if (s.roundingPriority === 'morePrecision' || s.roundingPriority === 'lessPrecision') {
      s.roundingType = s.roundingPriority;
    } else if (hasSd) {
      s.roundingType = 'significantDigits';
    } else {
      s.roundingType = 'fractionDigits';
    }
    if (increment !== 1) {
      if (s.roundingType !== 'fractionDigits') {
        throw new TypeError('For roundingIncrement, roundingType must be fractionDigits.');
      }
      if (s.maximumFractionDigits !== s.minimumFractionDigits) {
        throw new RangeError('maximumFractionDigits not equal to minimumFractionDigits');
      }
    }
  }

  // Rounds |x| (a decimal) as the digit options of s say; returns the rounded decimal and
  // the number of fraction digits to show at least.
  function roundToDigits(s, d, negative) {
    const precision = () => {
      const e = magnitude(d);
      const target = e - s.maximumSignificantDigits + 1;
      const r = roundDecimal(d, target, 1, s.roundingMode, negative);
      const e2 = magnitude(r);
      return { r, minFrac: Math.max(0, s.minimumSignificantDigits - 1 - e2), mag: target };
    };
    const fixed = () => {
      const target = -s.maximumFractionDigits;
      const r = roundDecimal(d, target, s.roundingIncrement, s.roundingMode, negative);
      return { r, minFrac: s.minimumFractionDigits, mag: target };
    };
    let result;
    if (s.roundingType === 'significantDigits') result = precision();
    else if (s.roundingType === 'fractionDigits') result = fixed();
    else {
      const p = precision();
      const f = fixed();
      const pMorePrecise = p.mag <= f.mag;
      if (s.roundingType === 'morePrecision') result = pMorePrecise ? p : f;
      else result = pMorePrecise ? f : p;
    }
    if (s.trailingZeroDisplay === 'stripIfInteger' &&
        (result.r.exp >= 0 || result.r.coef % pow10(-result.r.exp) === ZERO)) {
      result.minFrac = 0;
    }
    return result;
  }

  // Converts a value to what NumberFormat formats: a Number, a BigInt, or an exact
  // decimal read from a string.
  function toIntlMathematicalValue(value) {
    if (typeof value === 'bigint') {
      return { negative: value < ZERO, special: null, d: { coef: value < ZERO ? -value : value, exp: 0 } };
    }
    if (typeof value === 'symbol') throw new TypeError('Cannot convert a Symbol value to a number');
    if (typeof value === 'string') {
      const t = value.replace(/^[\s\u00a0\ufeff]+|[\s\u00a0\ufeff]+$/g, '');
      const m = /^([+-]?)((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)$/.exec(t);
      if (m) {
        const d = decimalFromString(m[2].startsWith('.') ? '0' + m[2] : m[2]);
        return { negative: m[1] === '-', special: null, d };
      }
      value = Number(t);
    } else if (typeof value === 'object' && value !== null) {
      value = toPrimitiveNumber(value);
      if (typeof value === 'bigint') return toIntlMathematicalValue(value);
    } else {
      value = Number(value);
    }
    if (Number.isNaN(value)) return { negative: false, special: 'nan' };
    const negative = value < 0 || Object.is(value, -0);
    if (!isFiniteNumber(value)) return { negative, special: 'infinity' };
    return { negative, special: null, d: decimalFromNumber(value) };
  }

  function toPrimitiveNumber(object) {
    const prim = (function () {
      const exotic = object[Symbol.toPrimitive];
      if (exotic !== undefined) return exotic.call(object, 'number');
      for (const name of ['valueOf', 'toString']) {
        const fn = object[name];
        if (typeof fn === 'function') {
          const v = fn.call(object);
          if (typeof v !== 'object' || v === null) return v;
        }
      }
      throw new TypeError('Cannot convert object to primitive value');
    })();
    return typeof prim === 'bigint' ? prim : Number(prim);
  }

  const groupInteger = (int, useGrouping) => {
    if (useGrouping === false || (useGrouping === 'min2' && int.length < 5) || int.length <= 3) {
      return [int];
    }
    const groups = [];
    let i = int.length % 3 || 3;
    groups.push(int.slice(0, i));
    for (; i < int.length; i += 3) groups.push(int.slice(i, i + 3));
    return groups;
  };

  // The parts of a formatted number, as formatToParts returns them.
  function formatNumberParts(s, value) {
    const x = toIntlMathematicalValue(value);
    const numberParts = [];
    let isZero = false;
    let exponent = null;
    let compact = '';
    let pluralOne = false;
    if (x.special === 'nan') {
      numberParts.push({ type: 'nan', value: 'NaN' });
    } else if (x.special === 'infinity') {
      numberParts.push({ type: 'infinity', value: '∞' });
    } else {
      let d = x.d;
      if (s.style === 'percent') d = shift(d, 2);
      let rounded;
      if (s.notation === 'compact') {
        let e = magnitude(d);
        for (let tries = 0; tries < 2; tries++) {
          const group = Math.min(Math.max(Math.floor(e / 3), 0), 4);
          rounded = roundToDigits(s, shift(d, -3 * group), x.negative);
          const e2 = magnitude(rounded.r) + 3 * group;
          compact = (s.compactDisplay === 'long' && s.style !== 'currency' ? COMPACT_LONG : COMPACT_SHORT)[group];
          if (rounded.r.coef === ZERO || Math.min(Math.floor(e2 / 3), 4) <= group || e2 < e) break;
          e = e2;
        }
      } else if (s.notation === 'scientific' || s.notation === 'engineering') {
        let e = d.coef === ZERO ? 0 : magnitude(d);
        if (s.notation === 'engineering') e = Math.floor(e / 3) * 3;
        rounded = roundToDigits(s, shift(d, -e), x.negative);
        const limit = s.notation === 'engineering' ? 3 : 1;
        if (rounded.r.coef !== ZERO && magnitude(rounded.r) >= limit) {
          e += limit;
          rounded = roundToDigits(s, shift(d, -e), x.negative);
        }
        exponent = e;
      } else {
        rounded = roundToDigits(s, d, x.negative);
      }
      isZero = rounded.r.coef === ZERO;
      const { int, frac } = decimalDigits(rounded.r, rounded.minFrac, s.minimumIntegerDigits);
      pluralOne = int === '1' && frac === '' && exponent === null && compact === '';
      const groups = groupInteger(int, s.useGrouping);
      groups.forEach((g, i) => {
        if (i) numberParts.push({ type: 'group', value: ',' });
        numberParts.push({ type: 'integer', value: g });
      });
      if (frac) {
        numberParts.push({ type: 'decimal', value: '.' });
        numberParts.push({ type: 'fraction', value: frac });
      }
      if (exponent !== null) {
        numberParts.push({ type: 'exponentSeparator', value: 'E' });
        if (exponent < 0) numberParts.push({ type: 'exponentMinusSign', value: '-' });
        numberParts.push({ type: 'exponentInteger', value: String(Math.abs(exponent)) });
      }
      if (compact) numberParts.push({ type: 'compact', value: compact.trim() });
    }

    let sign = '';
    switch (s.signDisplay) {
      case 'auto': sign = x.negative ? '-' : ''; break;
      case 'always': sign = x.negative ? '-' : '+'; break;
      case 'exceptZero': sign = isZero || x.special === 'nan' ? '' : x.negative ? '-' : '+'; break;
      case 'negative': sign = x.negative && !isZero ? '-' : ''; break;
      default: sign = '';
    }
    const parts = [];
    const accounting = s.style === 'currency' && s.currencySign === 'accounting' &&
      s.currencyDisplay !== 'name' && s.notation !== 'compact' && sign === '-';
    if (accounting) parts.push({ type: 'literal', value: '(' });
    else if (sign) parts.push({ type: sign === '-' ? 'minusSign' : 'plusSign', value: sign });
    const compactSpace = compact.startsWith(' ');
    const pushNumber = () => {
      for (const p of numberParts) {
        if (p.type === 'compact' && compactSpace) parts.push({ type: 'literal', value: ' ' });
        parts.push(p);
      }
    };
    if (s.style === 'currency') {
      const info = CURRENCIES[s.currency];
      if (s.currencyDisplay === 'name') {
        pushNumber();
        const name = info ? (pluralOne ? info.one : info.other) : s.currency;
        parts.push({ type: 'literal', value: ' ' }, { type: 'currency', value: name });
      } else {
        let symbol = s.currency;
        if (info && s.currencyDisplay === 'symbol') symbol = info.symbol;
        if (info && s.currencyDisplay === 'narrowSymbol') symbol = info.narrow;
        parts.push({ type: 'currency', value: symbol });
        // ICU's currency spacing: a symbol that does not end in a symbol character is
        // kept apart from the digits by a no-break space.
        if (!/\p{S}$/u.test(symbol)) parts.push({ type: 'literal', value: NBSP });
        pushNumber();
      }
    } else {
      pushNumber();
      if (s.style === 'percent') parts.push({ type: 'percentSign', value: '%' });
    }
    if (accounting) parts.push({ type: 'literal', value: ')' });
    return parts;
  }

  const joinParts = (parts) => {
    let out = '';
    for (const p of parts) out += p.value;
    return out;
  };

  function numberFormatSlots(nf, method) {
    const s = slots.get(nf);
    if (s === undefined || s.kind !== 'NumberFormat') throw incompatible('NumberFormat', method, nf);
    return s;
  }

  // The TypeError V8 throws for a method called on the wrong kind of object.
  function incompatible(kind, method, receiver) {
    if (kind === 'NumberFormat' && (method === 'get format' || method === 'resolvedOptions')) {
      return new TypeError('Method UnwrapNumberFormat called on incompatible receiver undefined');
    }
    if (kind === 'DateTimeFormat' && (method === 'get format' || method === 'resolvedOptions')) {
      return new TypeError(`Method UnwrapDateTimeFormat called on incompatible receiver ${receiverName(receiver)}`);
    }
    return new TypeError(`Method ${method.replace(/^(get )?/, `$1Intl.${kind}.prototype.`)} ` +
      `called on incompatible receiver ${receiverName(receiver)}`);
  }

  function receiverName(value) {
    if (value === null || value === undefined) return String(value);
    if (typeof value === 'string') return value;
    if (typeof value === 'object' || typeof value === 'function') {
      const ctor = value.constructor;
      return `#<${(ctor && ctor.name) || 'Object'}>`;
    }
    return String(value);
  }

  function formatNumberRangeParts(s, start, end) {
    if (start === undefined) throw new TypeError('Invalid start : undefined');
    if (end === undefined) throw new TypeError('Invalid end : undefined');
    const a = toIntlMathematicalValue(start);
    const b = toIntlMathematicalValue(end);
    if (a.special === 'nan') throw new RangeError('Invalid start : NaN');
    if (b.special === 'nan') throw new RangeError('Invalid end : NaN');
    const pa = formatNumberParts(s, start);
    const pb = formatNumberParts(s, end);
    const sa = joinParts(pa);
    const sb = joinParts(pb);
    if (sa === sb) {
      return [{ type: 'approximatelySign', value: '~', source: 'shared' },
        ...pa.map((p) => ({ ...p, source: 'shared' }))];
    }
    const plain = (str) => /^[0-9]/.test(str) && /[0-9]$/.test(str);
    const sep = plain(sa) && plain(sb) ? '–' : ' – ';
    return [...pa.map((p) => ({ ...p, source: 'startRange' })),
      { type: 'literal', value: sep, source: 'shared' },
      ...pb.map((p) => ({ ...p, source: 'endRange' }))];
  }

  defineProperties(NumberFormat.prototype, {
    resolvedOptions: hidden(function resolvedOptions() {
      const s = numberFormatSlots(this, 'resolvedOptions');
      const r = { locale: s.locale, numberingSystem: 'latn', style: s.style };
      if (s.style === 'currency') {
        r.currency = s.currency;
        r.currencyDisplay = s.currencyDisplay;
        r.currencySign = s.currencySign;
      }
      r.minimumIntegerDigits = s.minimumIntegerDigits;
      if (s.minimumSignificantDigits !== undefined) {
        r.minimumSignificantDigits = s.minimumSignificantDigits;
        r.maximumSignificantDigits = s.maximumSignificantDigits;
      }
      if (s.minimumFractionDigits !== undefined &&
          (s.roundingType !== 'significantDigits')) {
        r.minimumFractionDigits = s.minimumFractionDigits;
        r.maximumFractionDigits = s.maximumFractionDigits;
      }
      r.useGrouping = s.useGrouping;
      r.notation = s.notation;
      if (s.notation === 'compact') r.compactDisplay = s.compactDisplay;
      r.signDisplay = s.signDisplay;
      r.roundingMode = s.roundingMode;
      r.roundingIncrement = s.roundingIncrement;
      r.trailingZeroDisplay = s.trailingZeroDisplay;
      r.roundingPriority = s.roundingPriority;
      return r;
    }),
    formatToParts: hidden(function formatToParts(value) {
      const s = numberFormatSlots(this, 'formatToParts');
      return formatNumberParts(s, value);
    }),
    formatRange: hidden(function formatRange(start, end) {
      const s = numberFormatSlots(this, 'formatRange');
      return joinParts(formatNumberRangeParts(s, start, end));
    }),
    formatRangeToParts: hidden(function formatRangeToParts(start, end) {
      const s = numberFormatSlots(this, 'formatRangeToParts');
      return formatNumberRangeParts(s, start, end);
    }),
  });
  defineBoundGetter(NumberFormat.prototype, 'format', 'NumberFormat',
    (s) => function (value) { return joinParts(formatNumberParts(s, value)); });
  tag(NumberFormat.prototype, 'Intl.NumberFormat');

  // The `format`/`compare` accessors: a function bound to the object, made once.
  function defineBoundGetter(proto, name, kind, make) {
    const get = {
      [`get ${name}`]() {
        const s = slots.get(this);
        if (s === undefined || s.kind !== kind) throw incompatible(kind, `get ${name}`, this);
        if (s.bound === undefined) {
          const fn = make(s);
          defineProperty(fn, 'name', { value: '', configurable: true });
          s.bound = fn;
        }
        return s.bound;
      },
    }[`get ${name}`];
    defineProperty(proto, name, { get, set: undefined, enumerable: false, configurable: true });
  }

  // ---------------------------------------------------------------------------
  // Intl.PluralRules (English)
  // ---------------------------------------------------------------------------

  function PluralRules(locales, options) {
    if (new.target === undefined) throw new TypeError("Constructor Intl.PluralRules requires 'new'");
    const svc = 'Intl.PluralRules';
    // Plural rules are per language: a request for en-US resolves to "en", as in V8.
    const locale = resolveLocale(locales).matched ? 'en' : 'en-US';
    options = toObjectOptions(options, svc);
    getOption(options, 'localeMatcher', 'string', ['lookup', 'best fit'], 'best fit', svc);
    const s = { kind: 'PluralRules', locale };
    s.type = getOption(options, 'type', 'string', ['cardinal', 'ordinal'], 'cardinal', svc);
    setDigitOptions(s, options, 0, 3, 'standard', svc);
    slots.set(this, s);
  }

  function toNumber(n) {
    if (typeof n === 'symbol') throw new TypeError('Cannot convert a Symbol value to a number');
    if (typeof n === 'bigint') throw new TypeError('Cannot convert a BigInt value to a number');
    return Number(n);
  }

  function pluralCategory(s, n) {
    const x = toIntlMathematicalValue(toNumber(n));
    if (x.special) return 'other';
    const { r, minFrac } = roundToDigits(s, x.d, false);
    const { int, frac } = decimalDigits(r, minFrac, 1);
    if (s.type === 'cardinal') return int === '1' && frac === '' ? 'one' : 'other';
    if (frac.replace(/0+$/, '') !== '') return 'other';
    const n10 = Number(int.slice(-1));
    const n100 = Number(int.slice(-2));
    if (n10 === 1 && n100 !== 11) return 'one';
    if (n10 === 2 && n100 !== 12) return 'two';
    if (n10 === 3 && n100 !== 13) return 'few';
    return 'other';
  }

  function pluralRulesSlots(pr, method) {
    const s = slots.get(pr);
    if (s === undefined || s.kind !== 'PluralRules') {
      throw new TypeError(`Method ${method} called on incompatible receiver ${receiverName(pr)}`);
    }
    return s;
  }

  defineProperties(PluralRules.prototype, {
    resolvedOptions: hidden(function resolvedOptions() {
      const s = pluralRulesSlots(this, 'Intl.PluralRules.prototype.resolvedOptions');
      const r = { locale: s.locale, type: s.type, minimumIntegerDigits: s.minimumIntegerDigits };
      if (s.roundingType === 'significantDigits') {
        r.minimumSignificantDigits = s.minimumSignificantDigits;
        r.maximumSignificantDigits = s.maximumSignificantDigits;
      } else {
        r.minimumFractionDigits = s.minimumFractionDigits;
        r.maximumFractionDigits = s.maximumFractionDigits;
        if (s.minimumSignificantDigits !== undefined && s.roundingType !== 'fractionDigits') {
          r.minimumSignificantDigits = s.minimumSignificantDigits;
          r.maximumSignificantDigits = s.maximumSignificantDigits;
        }
      }
      r.pluralCategories = s.type === 'cardinal' ? ['one', 'other'] : ['few', 'one', 'two', 'other'];
      return r;
    }),
    select: hidden(function select(n) {
      const s = pluralRulesSlots(this, 'Intl.PluralRules.prototype.select');
      return pluralCategory(s, n);
    }),
    selectRange: hidden(function selectRange(start, end) {
      pluralRulesSlots(this, 'Intl.PluralRules.prototype.selectRange');
      if (start === undefined) throw new TypeError('Invalid startRange : undefined');
      if (end === undefined) throw new TypeError('Invalid endRange : undefined');
      const a = toNumber(start);
      const b = toNumber(end);
      if (Number.isNaN(a)) throw new RangeError('Invalid startRange : NaN');
      if (Number.isNaN(b)) throw new RangeError('Invalid endRange : NaN');
      // Every English plural range resolves to "other".
      return 'other';
    }),
  });
  tag(PluralRules.prototype, 'Intl.PluralRules');

  // ---------------------------------------------------------------------------
  // Intl.DateTimeFormat
  // ---------------------------------------------------------------------------

  // Date patterns (CLDR pattern letters; text in quotes is literal) for each combination
  // of weekday (E short, EEEE long), era, year, month and day, as ICU's pattern generator
  // resolves them for en-US. A narrow weekday or a long/narrow era use the short layout.
  const DATE_PATTERNS =
    'd=d;dd=dd;M=M;Md=M/d;Mdd=M/dd;MM=MM;MMd=MM/d;MMdd=MM/dd;MMM=MMM;MMMd=MMM d;' +
    'MMMdd=MMM dd;MMMM=MMMM;MMMMd=MMMM d;MMMMdd=MMMM dd;MMMMM=MMMMM;MMMMMd=MMMMM d;' +
    'MMMMMdd=MMMMM dd;y=y;yd=y (\'day\': d);ydd=y (\'day\': dd);yM=M/y;yMd=M/d/y;yMdd=M/dd/y;' +
    'yMM=MM/y;yMMd=MM/d/y;yMMdd=MM/dd/y;yMMM=MMM y;yMMMd=MMM d, y;yMMMdd=MMM dd, y;' +
    'yMMMM=MMMM y;yMMMMd=MMMM d, y;yMMMMdd=MMMM dd, y;yMMMMM=MMMMM y;yMMMMMd=MMMMM d, y;' +
    'yMMMMMdd=MMMMM dd, y;yy=yy;yyd=d yy;yydd=yy (\'day\': dd);yyM=M/yy;yyMd=M/d/yy;' +
    'yyMdd=M/dd/yy;yyMM=MM/yy;yyMMd=MM/d/yy;yyMMdd=MM/dd/yy;yyMMM=MMM yy;yyMMMd=MMM d, yy;' +
    'yyMMMdd=MMM dd, yy;yyMMMM=MMMM yy;yyMMMMd=MMMM d, yy;yyMMMMdd=MMMM dd, yy;' +
    'yyMMMMM=MMMMM yy;yyMMMMMd=MMMMM d, yy;yyMMMMMdd=MMMMM dd, yy;G=M/d/y G;' +
    'Gd=G (\'day\': d);Gdd=G (\'day\': dd);GM=G (\'month\': M);GMd=M/d G;GMdd=M/dd G;' +
    'GMM=G (\'month\': MM);GMMd=MM/d G;GMMdd=MM/dd G;GMMM=G (\'month\': MMM);GMMMd=MMM d G;' +
    'GMMMdd=MMM dd G;GMMMM=G (\'month\': MMMM);GMMMMd=MMMM d G;GMMMMdd=MMMM dd G;' +
    'GMMMMM=G (\'month\': MMMMM);GMMMMMd=MMMMM d G;GMMMMMdd=MMMMM dd G;Gy=y G;' +
    'Gyd=y G (\'day\': d);Gydd=y G (\'day\': dd);GyM=M/y G;GyMd=M/d/y G;GyMdd=M/dd/y G;' +
    'GyMM=MM/y G;GyMMd=MM/d/y G;GyMMdd=MM/dd/y G;GyMMM=MMM y G;GyMMMd=MMM d, y G;' +
    'GyMMMdd=MMM dd, y G;GyMMMM=MMMM y G;GyMMMMd=MMMM d, y G;GyMMMMdd=MMMM dd, y G;' +
    'GyMMMMM=MMMMM y G;GyMMMMMd=MMMMM d, y G;GyMMMMMdd=MMMMM dd, y G;Gyy=yy G;' +
    'Gyyd=yy G (\'day\': d);Gyydd=yy G (\'day\': dd);GyyM=M/yy G;GyyMd=M/d/yy G;' +
    'GyyMdd=M/dd/yy G;GyyMM=MM/yy G;GyyMMd=MM/d/yy G;GyyMMdd=MM/dd/yy G;GyyMMM=MMM yy G;' +
    'GyyMMMd=MMM d, yy G;GyyMMMdd=MMM dd, yy G;GyyMMMM=MMMM yy G;GyyMMMMd=MMMM d, yy G;' +
    'GyyMMMMdd=MMMM dd, yy G;GyyMMMMM=MMMMM yy G;GyyMMMMMd=MMMMM d, yy G;' +
    'GyyMMMMMdd=MMMMM dd, yy G;E=E;Ed=d E;Edd=dd E;EM=M E;EMd=E, M/d;EMdd=E, M/dd;' +
    'EMM=E (\'month\': MM);EMMd=E, MM/d;EMMdd=E, MM/dd;EMMM=MMM E;EMMMd=E, MMM d;' +
    'EMMMdd=E, MMM dd;EMMMM=E (\'month\': MMMM);EMMMMd=E, MMMM d;EMMMMdd=E, MMMM dd;' +
    'EMMMMM=E (\'month\': MMMMM);EMMMMMd=E, MMMMM d;EMMMMMdd=E, MMMMM dd;Ey=y E;Eyd=d E y;' +
    'Eydd=dd E y;EyM=M/y E;EyMd=E, M/d/y;EyMdd=E, M/dd/y;EyMM=MM/y E;EyMMd=E, MM/d/y;' +
    'EyMMdd=E, MM/dd/y;EyMMM=MMM y E;EyMMMd=E, MMM d, y;EyMMMdd=E, MMM dd, y;' +
    'EyMMMM=MMMM y E;EyMMMMd=E, MMMM d, y;EyMMMMdd=E, MMMM dd, y;EyMMMMM=MMMMM y E;' +
    'EyMMMMMd=E, MMMMM d, y;EyMMMMMdd=E, MMMMM dd, y;Eyy=E yy;Eyyd=d E yy;Eyydd=dd E yy;' +
    'EyyM=M/yy E;EyyMd=E, M/d/yy;EyyMdd=E, M/dd/yy;EyyMM=MM/yy E;EyyMMd=E, MM/d/yy;' +
    'EyyMMdd=E, MM/dd/yy;EyyMMM=MMM yy E;EyyMMMd=E, MMM d, yy;EyyMMMdd=E, MMM dd, yy;' +
    'EyyMMMM=MMMM yy E;EyyMMMMd=E, MMMM d, yy;EyyMMMMdd=E, MMMM dd, yy;' +
    'EyyMMMMM=MMMMM yy E;EyyMMMMMd=E, MMMMM d, yy;EyyMMMMMdd=E, MMMMM dd, yy;EG=G E;' +
    'EGd=d E G;EGdd=dd E G;EGM=G (\'month\': M);EGMd=E, M/d G;EGMdd=E, M/dd G;EGMM=G E;' +
    'EGMMd=E, MM/d G;EGMMdd=E, MM/dd G;EGMMM=G (\'month\': MMM);EGMMMd=E, MMM d G;' +
    'EGMMMdd=E, MMM dd G;EGMMMM=G E;EGMMMMd=E, MMMM d G;EGMMMMdd=E, MMMM dd G;EGMMMMM=G E;' +
    'EGMMMMMd=E, MMMMM d G;EGMMMMMdd=E, MMMMM dd G;EGy=y G E;EGyd=y G (\'day\': d E);' +
    'EGydd=y G (\'day\': dd E);EGyM=M/y G E;EGyMd=E, M/d/y G;EGyMdd=E, M/dd/y G;' +
    'EGyMM=MM/y G E;EGyMMd=E, MM/d/y G;EGyMMdd=E, MM/dd/y G;EGyMMM=MMM y G E;' +
    'EGyMMMd=E, MMM d, y G;EGyMMMdd=E, MMM dd, y G;EGyMMMM=MMMM y G E;' +
    'EGyMMMMd=E, MMMM d, y G;EGyMMMMdd=E, MMMM dd, y G;EGyMMMMM=MMMMM y G E;' +
    'EGyMMMMMd=E, MMMMM d, y G;EGyMMMMMdd=E, MMMMM dd, y G;EGyy=yy G E;EGyyd=d E yy G;' +
    'EGyydd=yy G (\'day\': dd E);EGyyM=M/yy G E;EGyyMd=E, M/d/yy G;EGyyMdd=E, M/dd/yy G;' +
    'EGyyMM=MM/yy G E;EGyyMMd=E, MM/d/yy G;EGyyMMdd=E, MM/dd/yy G;EGyyMMM=MMM yy G E;' +
    'EGyyMMMd=E, MMM d, yy G;EGyyMMMdd=E, MMM dd, yy G;EGyyMMMM=MMMM yy G E;' +
    'EGyyMMMMd=E, MMMM d, yy G;EGyyMMMMdd=E, MMMM dd, yy G;EGyyMMMMM=MMMMM yy G E;' +
    'EGyyMMMMMd=E, MMMMM d, yy G;EGyyMMMMMdd=E, MMMMM dd, yy G;EEEE=EEEE;EEEEd=d EEEE;' +
    'EEEEdd=dd EEEE;EEEEM=M EEEE;EEEEMd=EEEE, M/d;EEEEMdd=EEEE, M/dd;EEEEMM=MM EEEE;' +
    'EEEEMMd=EEEE, MM/d;EEEEMMdd=EEEE, MM/dd;EEEEMMM=MMM EEEE;EEEEMMMd=EEEE, MMM d;' +
    'EEEEMMMdd=EEEE, MMM dd;EEEEMMMM=MMMM EEEE;EEEEMMMMd=EEEE, MMMM d;' +
    'EEEEMMMMdd=EEEE, MMMM dd;EEEEMMMMM=EEEE (\'month\': MMMMM);EEEEMMMMMd=EEEE, MMMMM d;' +
    'EEEEMMMMMdd=EEEE, MMMMM dd;EEEEy=y EEEE;EEEEyd=d EEEE y;EEEEydd=dd EEEE y;' +
    'EEEEyM=M/y EEEE;EEEEyMd=EEEE, M/d/y;EEEEyMdd=EEEE, M/dd/y;EEEEyMM=MM/y EEEE;' +
    'EEEEyMMd=EEEE, MM/d/y;EEEEyMMdd=EEEE, MM/dd/y;EEEEyMMM=MMM y EEEE;' +
    'EEEEyMMMd=EEEE, MMM d, y;EEEEyMMMdd=EEEE, MMM dd, y;EEEEyMMMM=MMMM y EEEE;' +
    'EEEEyMMMMd=EEEE, MMMM d, y;EEEEyMMMMdd=EEEE, MMMM dd, y;EEEEyMMMMM=MMMMM y EEEE;' +
    'EEEEyMMMMMd=EEEE, MMMMM d, y;EEEEyMMMMMdd=EEEE, MMMMM dd, y;EEEEyy=yy EEEE;' +
    'EEEEyyd=d EEEE yy;EEEEyydd=dd EEEE yy;EEEEyyM=M/yy EEEE;EEEEyyMd=EEEE, M/d/yy;' +
    'EEEEyyMdd=EEEE, M/dd/yy;EEEEyyMM=MM/yy EEEE;EEEEyyMMd=EEEE, MM/d/yy;' +
    'EEEEyyMMdd=EEEE, MM/dd/yy;EEEEyyMMM=MMM yy EEEE;EEEEyyMMMd=EEEE, MMM d, yy;' +
    'EEEEyyMMMdd=EEEE, MMM dd, yy;EEEEyyMMMM=MMMM yy EEEE;EEEEyyMMMMd=EEEE, MMMM d, yy;' +
    'EEEEyyMMMMdd=EEEE, MMMM dd, yy;EEEEyyMMMMM=MMMMM yy EEEE;' +
    'EEEEyyMMMMMd=EEEE, MMMMM d, yy;EEEEyyMMMMMdd=EEEE, MMMMM dd, yy;EEEEG=G EEEE;' +
    'EEEEGd=d EEEE G;EEEEGdd=dd EEEE G;EEEEGM=G (\'month\': M);EEEEGMd=EEEE, M/d G;' +
    'EEEEGMdd=EEEE, M/dd G;EEEEGMM=G (\'month\': MM);EEEEGMMd=EEEE, MM/d G;' +
    'EEEEGMMdd=EEEE, MM/dd G;EEEEGMMM=G (\'month\': MMM);EEEEGMMMd=EEEE, MMM d G;' +
    'EEEEGMMMdd=EEEE, MMM dd G;EEEEGMMMM=G (\'month\': MMMM);EEEEGMMMMd=EEEE, MMMM d G;' +
    'EEEEGMMMMdd=EEEE, MMMM dd G;EEEEGMMMMM=G EEEE;EEEEGMMMMMd=EEEE, MMMMM d G;' +
    'EEEEGMMMMMdd=EEEE, MMMMM dd G;EEEEGy=y G EEEE;EEEEGyd=y G (\'day\': d EEEE);' +
    'EEEEGydd=y G (\'day\': dd EEEE);EEEEGyM=M/y G EEEE;EEEEGyMd=EEEE, M/d/y G;' +
    'EEEEGyMdd=EEEE, M/dd/y G;EEEEGyMM=MM/y G EEEE;EEEEGyMMd=EEEE, MM/d/y G;' +
    'EEEEGyMMdd=EEEE, MM/dd/y G;EEEEGyMMM=MMM y G EEEE;EEEEGyMMMd=EEEE, MMM d, y G;' +
    'EEEEGyMMMdd=EEEE, MMM dd, y G;EEEEGyMMMM=MMMM y G EEEE;EEEEGyMMMMd=EEEE, MMMM d, y G;' +
    'EEEEGyMMMMdd=EEEE, MMMM dd, y G;EEEEGyMMMMM=MMMMM y G EEEE;' +
    'EEEEGyMMMMMd=EEEE, MMMMM d, y G;EEEEGyMMMMMdd=EEEE, MMMMM dd, y G;EEEEGyy=yy G EEEE;' +
    'EEEEGyyd=yy G (\'day\': d EEEE);EEEEGyydd=yy G (\'day\': dd EEEE);EEEEGyyM=M/yy G EEEE;' +
    'EEEEGyyMd=EEEE, M/d/yy G;EEEEGyyMdd=EEEE, M/dd/yy G;EEEEGyyMM=MM/yy G EEEE;' +
    'EEEEGyyMMd=EEEE, MM/d/yy G;EEEEGyyMMdd=EEEE, MM/dd/yy G;EEEEGyyMMM=MMM yy G EEEE;' +
    'EEEEGyyMMMd=EEEE, MMM d, yy G;EEEEGyyMMMdd=EEEE, MMM dd, yy G;' +
    'EEEEGyyMMMM=MMMM yy G EEEE;EEEEGyyMMMMd=EEEE, MMMM d, yy G;' +
    'EEEEGyyMMMMdd=EEEE, MMMM dd, yy G;EEEEGyyMMMMM=MMMMM yy G EEEE;' +
    'EEEEGyyMMMMMd=EEEE, MMMMM d, yy G;EEEEGyyMMMMMdd=EEEE, MMMMM dd, yy G';
  // The layouts where a long or narrow era, or a narrow weekday, differ from the short ones.
  const WIDTH_PATTERNS =
    'GGGGd=d GGGG;GGGGM=M GGGG;GGGGMMM=MMM GGGG;GGGGGd=d GGGGG;GGGGGdd=dd GGGGG;' +
    'GGGGGM=M GGGGG;GGGGGMM=MM GGGGG;GGGGGMMM=MMM GGGGG;GGGGGMMMM=MMMM GGGGG;EGGGG=E GGGG;' +
    'EGGGGM=M E;EGGGGMM=E GGGG;EGGGGMMM=MMM E;EGGGGMMMM=E GGGG;EGGGGMMMMM=E GGGG;' +
    'EGGGGyd=d E y GGGG;EGGGGyydd=dd E yy GGGG;EGGGGG=E GGGGG;EGGGGGM=M E;' +
    'EGGGGGMM=E (\'month\': MM);EGGGGGMMM=MMM E;EGGGGGMMMM=E (\'month\': MMMM);' +
    'EGGGGGMMMMM=E GGGGG;EGGGGGyd=d E y GGGGG;EGGGGGydd=dd E y GGGGG;' +
    'EGGGGGyydd=dd E yy GGGGG;EEEEGGGGM=M GGGG;EEEEGGGGMMM=MMM GGGG;' +
    'EEEEGGGGyyd=d EEEE yy GGGG;EEEEGGGGG=EEEE GGGGG;EEEEGGGGGM=M EEEE;' +
    'EEEEGGGGGMM=MM EEEE;EEEEGGGGGMMM=MMM EEEE;EEEEGGGGGMMMM=MMMM EEEE;' +
    'EEEEGGGGGMMMMM=EEEE GGGGG;EEEEGGGGGyd=d EEEE y GGGGG;EEEEGGGGGyyd=d EEEE yy GGGGG;' +
    'EEEEGGGGGyydd=dd EEEE yy GGGGG;EEEEEGGGGM=M GGGG;EEEEEGGGGMMM=MMM GGGG;' +
    'EEEEEGGGGGM=M GGGGG;EEEEEGGGGGMM=MM GGGGG;EEEEEGGGGGMMM=MMM GGGGG;' +
    'EEEEEGGGGGMMMM=MMMM GGGGG;EEEEEGGGGGyyd=d EEEEE yy GGGGG';
  const NARROW_WEEKDAY_PATTERNS = "EEEEEMM=MM EEEEE;EEEEEMMMM=MMMM EEEEE;EEEEEMMMMM=MMMMM EEEEE;" +
    "EEEEEyy=yy EEEEE;EEEEEGMM=G ('month': MM);EEEEEGMMMM=G ('month': MMMM);" +
    "EEEEEGMMMMM=G ('month': MMMMM);EEEEEGyyd=yy G ('day': d EEEEE)";
  const datePatterns = new Map();
  for (const entry of (DATE_PATTERNS + ';' + NARROW_WEEKDAY_PATTERNS + ';' + WIDTH_PATTERNS).split(';')) {
    const eq = entry.indexOf('=');
    datePatterns.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  // An era alone is only ever asked for beside time fields (otherwise the date defaults
  // join it).
  datePatterns.set('G', 'G');

  const MONTHS_LONG = ['January', 'February', 'March', 'April', 'May', 'June', 'July',
    'August', 'September', 'October', 'November', 'December'];
  const MONTHS_SHORT = MONTHS_LONG.map((m) => m.slice(0, 3));
  const WEEKDAYS_LONG = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday',
    'Saturday'];
  const WEEKDAYS_SHORT = WEEKDAYS_LONG.map((w) => w.slice(0, 3));
  const ERAS = { short: ['BC', 'AD'], long: ['Before Christ', 'Anno Domini'], narrow: ['B', 'A'] };
  const TIME_ZONE_NAMES = {
    short: 'UTC', long: 'Coordinated Universal Time', shortOffset: 'GMT+0',
    longOffset: 'GMT+00:00', shortGeneric: 'GMT+0', longGeneric: 'GMT+00:00',
  };
  const DATE_STYLES = {
    full: 'EEEE, MMMM d, y', long: 'MMMM d, y', medium: 'MMM d, y', short: 'M/d/yy',
  };
  // CLDR separates the day period with U+202F; format() prints it as a plain space, as
  // V8 does, and formatToParts keeps it.
  const TIME_STYLES = {
    full: 'h:mm:ss\u202fa zzzz', long: 'h:mm:ss\u202fa z', medium: 'h:mm:ss\u202fa', short: 'h:mm\u202fa',
  };
  const UTC_NAMES = /^(etc\/)?(utc|gmt|uct|universal|zulu|greenwich|gmt[+-]?0|gmt0)$/i;

  const DTF_COMPONENTS = [
    ['weekday', ['narrow', 'short', 'long']],
    ['era', ['narrow', 'short', 'long']],
    ['year', ['2-digit', 'numeric']],
    ['month', ['2-digit', 'numeric', 'narrow', 'short', 'long']],
    ['day', ['2-digit', 'numeric']],
    ['dayPeriod', ['narrow', 'short', 'long']],
    ['hour', ['2-digit', 'numeric']],
    ['minute', ['2-digit', 'numeric']],
    ['second', ['2-digit', 'numeric']],
    ['fractionalSecondDigits', null],
    ['timeZoneName', ['short', 'long', 'shortOffset', 'longOffset', 'shortGeneric', 'longGeneric']],
  ];

  // Splits a CLDR pattern into fields ({ letter, count }) and literal strings.
  function parsePattern(pattern) {
    const out = [];
    let literal = '';
    for (let i = 0; i < pattern.length;) {
      const c = pattern[i];
      if (c === "'") {
        const end = pattern.indexOf("'", i + 1);
        literal += pattern.slice(i + 1, end);
        i = end + 1;
      } else if (/[A-Za-z]/.test(c)) {
        let j = i;
        while (pattern[j] === c) j++;
        if (literal) out.push(literal);
        literal = '';
        out.push({ letter: c, count: j - i });
        i = j;
      } else {
        literal += c;
        i++;
      }
    }
    if (literal) out.push(literal);
    return out;
  }

  const HOUR_LETTERS = { h11: 'K', h12: 'h', h23: 'H', h24: 'k' };

  // The time part of a pattern for the requested time fields.
  function timePattern(o, hc) {
    const twelve = hc === 'h11' || hc === 'h12';
    const hl = HOUR_LETTERS[hc];
    const H = o.hour !== undefined;
    const M = o.minute !== undefined;
    const S = o.second !== undefined;
    const F = o.fractionalSecondDigits;
    const frac = F ? '.' + 'S'.repeat(F) : '';
    const hour = twelve ? (o.hour === '2-digit' ? hl + hl : hl) : hl + hl;
    let p;
    if (H) {
      p = M ? hour + ':mm' + (S || F ? ':ss' + frac : '') : hour;
      if (twelve) p += o.dayPeriod ? (o.timeZoneName ? '\u202fB' : ' B') : '\u202fa';
      else if (!M && o.timeZoneName) p += "'h'";
      if (o.timeZoneName) p += ' ' + TZ_LETTERS[o.timeZoneName];
      if (!M && S) p += " ('second': s)";
    } else if (M) {
      p = S || F ? 'mm:ss' + frac : 'm';
    } else if (S) {
      p = 's' + frac;
    } else if (F) {
      p = 'S'.repeat(F);
    } else {
      p = o.dayPeriod ? 'B' : '';
    }
    return p;
  }

  const TZ_LETTERS = {
    short: 'z', long: 'zzzz', shortOffset: 'O', longOffset: 'OOOO', shortGeneric: 'v',
    longGeneric: 'vvvv',
  };

  // The pattern for a DateTimeFormat's resolved options.
  function dateTimePattern(s) {
    const hc = s.hourCycle || 'h12';
    if (s.dateStyle || s.timeStyle) {
      const date = s.dateStyle ? DATE_STYLES[s.dateStyle] : '';
      let time = s.timeStyle ? TIME_STYLES[s.timeStyle] : '';
      if (time && hc !== 'h12') {
        const twelve = hc === 'h11';
        time = time.replace('h', twelve ? 'K' : HOUR_LETTERS[hc] + HOUR_LETTERS[hc]);
        if (!twelve) time = time.replace('\u202fa', '');
      }
      if (!date) return time;
      if (!time) return date;
      const glue = s.dateStyle === 'full' || s.dateStyle === 'long' ? " 'at' " : ', ';
      return date + glue + time;
    }
    const o = s.requested;
    let key = '';
    if (o.weekday) key += o.weekday === 'long' ? 'EEEE' : 'E';
    if (o.era) key += 'G';
    if (o.year) key += o.year === 'numeric' ? 'y' : 'yy';
    if (o.month) {
      key += { numeric: 'M', '2-digit': 'MM', short: 'MMM', long: 'MMMM', narrow: 'MMMMM' }[o.month];
    }
    if (o.day) key += o.day === 'numeric' ? 'd' : 'dd';
    let date = key ? datePatterns.get(key) : '';
    if (o.weekday === 'narrow') {
      const narrow = datePatterns.get(key.replace('E', 'EEEEE'));
      date = narrow !== undefined ? narrow : date.replace(/E+/, 'EEEEE');
    }
    if (o.era === 'long' || o.era === 'narrow') {
      const g = o.era === 'long' ? 'GGGG' : 'GGGGG';
      const wide = datePatterns.get(key.replace('E', o.weekday === 'narrow' ? 'EEEEE' : 'E').replace('G', g));
      date = wide !== undefined ? wide : date.replace('G', g);
    }
    let time = timePattern(o, hc);
    const tz = o.timeZoneName ? TZ_LETTERS[o.timeZoneName] : '';
    if (tz && o.hour === undefined) time = time ? time + ' ' + tz : tz;
    if (!date) return time;
    if (!time) return date;
    // CLDR has "E h:mm a"-style layouts for a weekday beside plain times.
    const twelve = hc === 'h11' || hc === 'h12';
    if ((key === 'E' || key === 'EEEE') && !tz && !o.fractionalSecondDigits && o.hour !== undefined &&
        (twelve || o.minute !== undefined)) {
      return date + ' ' + time;
    }
    return date + (key.includes('MMMM') && !key.includes('MMMMM') ? " 'at' " : ', ') + time;
  }

  const pad2 = (n) => (n < 10 ? '0' + n : String(n));

  const formatDate = (s, t) => joinParts(formatDateParts(s, t)).replace(/\u202f/g, ' ');

  // formatRange: the two dates apart, or once when they print the same.
  function formatDateRangeParts(s, start, end) {
    if (start === undefined || end === undefined) throw new TypeError('Invalid time value');
    const a = formatDateParts(s, toTimeValue(start));
    const b = formatDateParts(s, toTimeValue(end));
    if (joinParts(a) === joinParts(b)) return a.map((p) => ({ ...p, source: 'shared' }));
    return [...a.map((p) => ({ ...p, source: 'startRange' })),
      { type: 'literal', value: '\u2009\u2013\u2009', source: 'shared' },
      ...b.map((p) => ({ ...p, source: 'endRange' }))];
  }

  // The parts of a formatted time value under a pattern.
  function formatDateParts(s, t) {
    const date = new Date(t);
    const year = date.getUTCFullYear();
    const month = date.getUTCMonth();
    const day = date.getUTCDate();
    const weekday = date.getUTCDay();
    const hour = date.getUTCHours();
    const minute = date.getUTCMinutes();
    const second = date.getUTCSeconds();
    const ms = date.getUTCMilliseconds();
    const eraYear = year <= 0 ? 1 - year : year;
    const parts = [];
    for (const item of s.parsed) {
      if (typeof item === 'string') {
        parts.push({ type: 'literal', value: item });
        continue;
      }
      const { letter, count } = item;
      let type;
      let value;
      switch (letter) {
        case 'G':
          type = 'era';
          value = ERAS[count === 4 ? 'long' : count === 5 ? 'narrow' : 'short'][year <= 0 ? 0 : 1];
          break;
        case 'y':
          type = 'year';
          value = count === 2 ? pad2(eraYear % 100) : String(eraYear);
          break;
        case 'M':
          type = 'month';
          value = count === 1 ? String(month + 1) : count === 2 ? pad2(month + 1) :
            count === 3 ? MONTHS_SHORT[month] : count === 4 ? MONTHS_LONG[month] :
              MONTHS_LONG[month][0];
          break;
        case 'd':
          type = 'day';
          value = count === 2 ? pad2(day) : String(day);
          break;
        case 'E':
          type = 'weekday';
          value = count === 4 ? WEEKDAYS_LONG[weekday] : count === 5 ?
            WEEKDAYS_LONG[weekday][0] : WEEKDAYS_SHORT[weekday];
          break;
        case 'a':
          type = 'dayPeriod';
          value = hour < 12 ? 'AM' : 'PM';
          break;
        case 'B': {
          type = 'dayPeriod';
          const shownZero = (!s.parsed.some((f) => f.letter === 'm') || minute === 0) &&
            (!s.parsed.some((f) => f.letter === 's') || second === 0);
          if (hour === 12 && shownZero) value = s.dayPeriod === 'narrow' ? 'n' : 'noon';
          else if (hour < 12) value = 'in the morning';
          else if (hour < 18) value = 'in the afternoon';
          else if (hour < 21) value = 'in the evening';
          else value = 'at night';
          break;
        }
        case 'h': case 'K': case 'H': case 'k': {
          type = 'hour';
          let h = hour;
          if (letter === 'h') h = hour % 12 || 12;
          else if (letter === 'K') h = hour % 12;
          else if (letter === 'k') h = hour || 24;
          value = count === 2 ? pad2(h) : String(h);
          break;
        }
        case 'm':
          type = 'minute';
          value = count === 2 ? pad2(minute) : String(minute);
          break;
        case 's':
          type = 'second';
          value = count === 2 ? pad2(second) : String(second);
          break;
        case 'S':
          type = 'fractionalSecond';
          value = String(ms).padStart(3, '0').slice(0, count);
          break;
        default:
          type = 'timeZoneName';
          value = TIME_ZONE_NAMES[s.timeZoneNameStyle];
      }
      parts.push({ type, value });
    }
    // Adjacent literals (a quoted text beside punctuation) are one part.
    const merged = [];
    for (const p of parts) {
      const last = merged[merged.length - 1];
      if (last && last.type === 'literal' && p.type === 'literal') last.value += p.value;
      else merged.push(p);
    }
    return merged;
  }

  function toDateTimeOptions(options, required, defaults) {
    if (options === null) throw new TypeError('Cannot convert undefined or null to object');
    options = options === undefined ? null : Object(options);
    const o = objectCreate(options);
    let needDefaults = true;
    if (required === 'date' || required === 'any') {
      for (const p of ['weekday', 'year', 'month', 'day']) if (o[p] !== undefined) needDefaults = false;
    }
    if (required === 'time' || required === 'any') {
      for (const p of ['dayPeriod', 'hour', 'minute', 'second', 'fractionalSecondDigits']) {
        if (o[p] !== undefined) needDefaults = false;
      }
    }
    if (o.dateStyle !== undefined || o.timeStyle !== undefined) needDefaults = false;
    if (required === 'date' && o.timeStyle !== undefined) {
      throw new TypeError('Invalid option : timeStyle');
    }
    if (required === 'time' && o.dateStyle !== undefined) {
      throw new TypeError('Invalid option : dateStyle');
    }
    if (needDefaults && (defaults === 'date' || defaults === 'all')) {
      for (const p of ['year', 'month', 'day']) defineProperty(o, p, hidden('numeric'));
    }
    if (needDefaults && (defaults === 'time' || defaults === 'all')) {
      for (const p of ['hour', 'minute', 'second']) defineProperty(o, p, hidden('numeric'));
    }
    return o;
  }

  function createDateTimeFormat(dtf, locales, options, required, defaults, svc) {
    const resolved = resolveLocale(locales);
    const requestedOptions = options;
    options = toDateTimeOptions(options, required, defaults);
    const s = { kind: 'DateTimeFormat', locale: resolved.locale };
    getOption(options, 'localeMatcher', 'string', ['lookup', 'best fit'], 'best fit', svc);
    const calendar = getOption(options, 'calendar', 'string', undefined, undefined, svc);
    if (calendar !== undefined && !/^[a-zA-Z0-9]{3,8}(-[a-zA-Z0-9]{3,8})*$/.test(calendar)) {
      throw new RangeError('Invalid calendar : ' + calendar);
    }
    const nu = getOption(options, 'numberingSystem', 'string', undefined, undefined, svc);
    if (nu !== undefined && !/^[a-zA-Z0-9]{3,8}(-[a-zA-Z0-9]{3,8})*$/.test(nu)) {
      throw new RangeError('Invalid numberingSystem : ' + nu);
    }
    const hour12 = getOption(options, 'hour12', 'boolean', undefined, undefined, svc);
    let hourCycle = getOption(options, 'hourCycle', 'string', ['h11', 'h12', 'h23', 'h24'],
      undefined, svc);
    const hcKeyword = resolved.keywords.hc;
    if (hour12 !== undefined) hourCycle = hour12 ? 'h12' : 'h24';
    let hcFromKeyword = false;
    if (hourCycle === undefined && ['h11', 'h12', 'h23', 'h24'].includes(hcKeyword)) {
      hourCycle = hcKeyword;
      hcFromKeyword = true;
    }
    let timeZone = options.timeZone;
    if (timeZone === undefined) {
      timeZone = 'UTC';
    } else {
      timeZone = String(timeZone);
      if (!UTC_NAMES.test(timeZone)) throw new RangeError('Invalid time zone specified: ' + timeZone);
      timeZone = 'UTC';
    }
    s.timeZone = timeZone;
    const requested = {};
    let firstComponent;
    for (const [prop, values] of DTF_COMPONENTS) {
      let value;
      if (values === null) {
        value = getNumberOption(options, prop, 1, 3, undefined);
      } else {
        value = getOption(options, prop, 'string', values, undefined, svc);
      }
      if (value !== undefined) {
        requested[prop] = value;
        if (firstComponent === undefined && requestedOptions !== undefined &&
            requestedOptions !== null && Object(requestedOptions)[prop] !== undefined) {
          firstComponent = prop;
        }
      }
    }
    getOption(options, 'formatMatcher', 'string', ['basic', 'best fit'], 'best fit', svc);
    s.dateStyle = getOption(options, 'dateStyle', 'string', ['full', 'long', 'medium', 'short'],
      undefined, svc);
    s.timeStyle = getOption(options, 'timeStyle', 'string', ['full', 'long', 'medium', 'short'],
      undefined, svc);
    if (s.dateStyle !== undefined || s.timeStyle !== undefined) {
      if (firstComponent !== undefined) {
        throw new TypeError(`Can't set option ${firstComponent} when ${s.dateStyle !== undefined ?
          'dateStyle' : 'timeStyle'} is used`);
      }
    }
    const hasHour = s.timeStyle !== undefined || requested.hour !== undefined;
    if (hasHour) {
      s.hourCycle = hourCycle || 'h12';
    }
    s.requested = requested;
    s.dayPeriod = requested.dayPeriod;
    s.timeZoneNameStyle = s.timeStyle === 'full' ? 'long' : s.timeStyle === 'long' ? 'short' :
      requested.timeZoneName;
    s.pattern = dateTimePattern(s);
    s.parsed = parsePattern(s.pattern);
    s.locale = extendedLocale(resolved, { ca: 'gregory', nu: 'latn' },
      hcFromKeyword && hasHour ? [['hc', s.hourCycle]] : []);
    slots.set(dtf, s);
    return dtf;
  }

  function DateTimeFormat(locales, options) {
    const dtf = new.target === undefined ? objectCreate(DateTimeFormat.prototype) : this;
    return createDateTimeFormat(dtf, locales, options, 'any', 'date', 'Intl.DateTimeFormat');
  }

  function dateTimeFormatSlots(dtf, method) {
    const s = slots.get(dtf);
    if (s === undefined || s.kind !== 'DateTimeFormat') throw incompatible('DateTimeFormat', method, dtf);
    return s;
  }

  function toTimeValue(date) {
    let t = date === undefined ? Date.now() : Number(date);
    if (!isFiniteNumber(t) || Math.abs(t) > 8.64e15) throw new RangeError('Invalid time value');
    return Math.trunc(t) + 0;
  }

  const WIDTHS = {
    G: { 1: 'short', 2: 'short', 3: 'short', 4: 'long', 5: 'narrow' },
    E: { 1: 'short', 2: 'short', 3: 'short', 4: 'long', 5: 'narrow' },
    M: { 1: 'numeric', 2: '2-digit', 3: 'short', 4: 'long', 5: 'narrow' },
  };
  const NUMERIC_WIDTH = (count) => (count === 2 ? '2-digit' : 'numeric');

  defineProperties(DateTimeFormat.prototype, {
    resolvedOptions: hidden(function resolvedOptions() {
      const s = dateTimeFormatSlots(this, 'resolvedOptions');
      const r = { locale: s.locale, calendar: 'gregory', numberingSystem: 'latn', timeZone: s.timeZone };
      const hasHour = s.parsed.some((f) => typeof f !== 'string' && 'hHKk'.includes(f.letter));
      // V8 reads the fields back by searching the pattern text, quoted literals included
      // (so "(month: 1)" also reports an hour and a minute); the longest run counts.
      const fields = {};
      const re = /([A-Za-z])\1*/g;
      let m;
      while ((m = re.exec(s.pattern)) !== null) {
        const letter = m[1];
        fields[letter] = Math.max(fields[letter] || 0, m[0].length);
      }
      const hourLetter = ['H', 'h', 'k', 'K'].find((l) => fields[l]);
      if (hasHour) {
        r.hourCycle = s.hourCycle;
        r.hour12 = s.hourCycle === 'h11' || s.hourCycle === 'h12';
      }
      if (s.dateStyle || s.timeStyle) {
        if (s.dateStyle) r.dateStyle = s.dateStyle;
        if (s.timeStyle) r.timeStyle = s.timeStyle;
        return r;
      }
      if (fields.E) r.weekday = WIDTHS.E[fields.E];
      if (fields.G) r.era = WIDTHS.G[fields.G];
      if (fields.y) r.year = NUMERIC_WIDTH(fields.y);
      if (fields.M) r.month = WIDTHS.M[fields.M];
      if (fields.d) r.day = NUMERIC_WIDTH(fields.d);
      if (fields.B) r.dayPeriod = s.dayPeriod;
      if (hourLetter) r.hour = NUMERIC_WIDTH(fields[hourLetter]);
      if (fields.m) r.minute = NUMERIC_WIDTH(fields.m);
      if (fields.s) r.second = NUMERIC_WIDTH(fields.s);
      if (fields.S) r.fractionalSecondDigits = fields.S;
      if (s.requested.timeZoneName) r.timeZoneName = s.requested.timeZoneName;
      return r;
    }),
    formatToParts: hidden(function formatToParts(date) {
      const s = dateTimeFormatSlots(this, 'formatToParts');
      return formatDateParts(s, toTimeValue(date));
    }),
    formatRange: hidden(function formatRange(start, end) {
      const s = dateTimeFormatSlots(this, 'formatRange');
      return joinParts(formatDateRangeParts(s, start, end));
    }),
    formatRangeToParts: hidden(function formatRangeToParts(start, end) {
      const s = dateTimeFormatSlots(this, 'formatRangeToParts');
      return formatDateRangeParts(s, start, end);
    }),
  });
  defineBoundGetter(DateTimeFormat.prototype, 'format', 'DateTimeFormat',
    (s) => function (date) { return formatDate(s, toTimeValue(date)); });
  tag(DateTimeFormat.prototype, 'Intl.DateTimeFormat');

  // ---------------------------------------------------------------------------
  // Intl.Collator: the Unicode collation algorithm over ICU's root order
  // ---------------------------------------------------------------------------

  // Characters in ICU's root order, one string per primary weight. Within a string, "|"
  // separates secondary differences; the characters between two "|" differ in case or
  // by a tertiary variant, in that order. Spaces and punctuation come first (up to the
  // grave accent, the first symbol: ignorePunctuation drops those), then symbols, digits
  // and letters.
  const COLLATION_GROUPS = [
    "\u0009", "\u000a", "\u000b", "\u000c", "\u000d", "\u2028", "\u2029", " ", "_", "-", "‐",
    "‒", "–", "—", "―", ",", ";", ":", "!", "\u00a1", "?", "\u00bf", "‽", ".", "\u00b7",
    "'|‘|’|‚|‛", "‹", "›", "\"|“|”|„|‟", "\u00ab", "\u00bb", "(", ")", "[", "]", "{", "}",
    "‖", "\u00a7", "\u00b6", "@", "*", "/", "\\", "&", "#", "%", "‰", "‱", "†", "‡", "•", "‣",
    "‧", "⁃", "′", "‵", "‸", "※", "‿", "⁀", "⁁", "⁂", "`", "^", "͵", "\u00b0", "\u00a9",
    "\u00ae", "←", "→", "↑", "↓", "϶", "+", "\u00b1", "\u00f7", "\u00d7", "<", "=", ">",
    "\u00ac", "|", "\u00a6", "~", "⁄", "\u00a4", "\u00a2", "$", "\u00a3", "\u00a5", "₠", "₡",
    "₢", "₣", "₤", "₥", "₦", "₩", "₪", "₫", "€", "₭", "₮", "₯", "₰", "₱", "₲", "₳", "₴", "₵",
    "₶", "₷", "₸", "₹", "₺", "₻", "₼", "₽", "₾", "₿", "⃀", "0", "1", "2", "3", "4", "5", "6",
    "7", "8", "9", "aA", "Ⱥ", "bB", "ƀɃ", "Ɓ", "ƃƂ", "cC", "ȼȻ", "ƈƇ", "dD|đĐ|\u00f0\u00d0",
    "ȸ", "Ɖ", "Ɗ", "ƌƋ", "ȡ", "eE", "ɇɆ", "ǝƎ", "Ə", "Ɛ", "fF", "ƒƑ", "gG", "ǥǤ", "Ɠ", "Ɣ",
    "ƣƢ", "hH|ħĦ", "ƕǶ", "iI", "ı", "Ɨ", "Ɩ", "jJ", "ȷ", "ɉɈ", "kK", "ƙƘ", "lL|łŁ", "ƚȽ", "ȴ",
    "ƛ", "mM", "nN", "Ɲ", "ƞȠ", "ȵ", "ŋŊ", "oO", "Ɔ", "Ɵ", "ȣȢ", "pP", "₧", "ƥƤ", "qQ", "ȹ",
    "ɋɊ", "ĸ", "rR", "Ʀ", "ɍɌ", "sS", "ȿ", "Ʃ", "ƪ", "tT", "ƾ", "ŧŦ", "Ⱦ", "ƫ", "ƭƬ", "Ʈ",
    "ȶ", "uU", "Ʉ", "Ɯ", "Ʊ", "vV", "Ʋ", "Ʌ", "wW", "xX", "yY", "ɏɎ", "ƴƳ", "ȝȜ", "zZ", "ƍ",
    "ƶƵ", "ȥȤ", "ɀ", "Ʒ", "ƹƸ", "ƺ", "\u00fe\u00de", "ƿǷ", "ƻ", "ƨƧ", "ƽƼ", "ƅƄ", "ɂɁ", "ǀ",
    "ǁ", "ǂ", "ǃ", "αΑ", "βΒ", "γΓ", "δΔ", "εΕ", "ϝϜ", "ͷͶ", "ϛϚ", "ζΖ", "ͱͰ", "ηΗ", "θΘ",
    "ιΙ", "ϳͿ", "κΚ", "ϗϏ", "λΛ", "μΜ", "νΝ", "ξΞ", "οΟ", "πΠ", "ϻϺ", "ϟϞ", "ϙϘ", "ρΡ", "ϼ",
    "σΣς", "ͼϾ", "ͻϽ", "ͽϿ", "τΤ", "υΥ", "φΦ", "χΧ", "ψΨ", "ωΩ", "ϡϠ", "ͳͲ", "ϸϷ", "ϣϢ", "ϥϤ",
    "ϧϦ", "ϩϨ", "ϫϪ", "ϭϬ", "ϯϮ", "аА", "бБ", "вВ", "гГ", "дД", "ђЂ", "еЕ", "єЄ", "жЖ", "зЗ",
    "ѕЅ", "иИ", "іІ", "јЈ", "кК", "лЛ", "љЉ", "мМ", "нН", "њЊ", "оО", "пП", "рР", "сС", "тТ",
    "ћЋ", "уУ", "фФ", "хХ", "цЦ", "чЧ", "џЏ", "шШ", "щЩ", "ъЪ", "ыЫ", "ьЬ", "эЭ", "юЮ", "яЯ",
  ];
  const COLLATION_MARKS =
    "\u034f\u0332\u0313\u0343\u0314\u0301\u0341\u0300\u0340\u0306\u0302\u030c\u030a\u0342\u0308\u0344\u030b\u0303\u0307\u0338\u0327\u0328\u0304\u030d\u030e\u0312\u0315\u031a\u033d\u033e\u033f\u0346\u034a\u034b\u034c\u0350\u0351\u0352\u0357\u035b\u035d\u035e\u0316\u0317\u0318\u0319\u031c\u031d\u031e\u031f\u0320\u0329\u032a\u032b\u032c\u032f\u0333\u033a\u033b\u033c\u0347\u0348\u0349\u034d\u034e\u0353\u0354\u0355\u0356\u0359\u035a\u035c\u035f\u0362\u0336\u0337\u0335\u0305\u0309\u030f\u0310\u0311\u031b\u0321\u0322\u0323\u0324\u0325\u0326\u032d\u032e\u0330\u0331\u0334\u0339\u0345\u0358\u0360\u0361\u0363\u0368\u0369\u0364\u036a\u0365\u036b\u0366\u036c\u036d\u0367\u036e\u036f";

  const collationTable = new Map();
  let variableTop = 0;
  COLLATION_GROUPS.forEach((group, primary) => {
    if (group === '`') variableTop = primary;
    (group === '|' ? [group] : group.split('|')).forEach((cls, secondary) => {
      Array.from(cls).forEach((ch, tertiary) => {
        collationTable.set(ch, [primary + 1, secondary, tertiary]);
      });
    });
  });
  const DIGIT_ZERO = collationTable.get('0')[0];
  const CURRENCY_FIRST = collationTable.get('\u00a4')[0];
  const GREEK_FIRST = collationTable.get('\u03b1')[0];

  // The primary weight of a character the table lacks: as ICU groups them, decimal digits
  // by value, punctuation before the symbols, other symbols before the currency signs,
  // other Latin letters after the listed ones; the rest by code point after everything.
  function fallbackPrimary(ch, cp) {
    const offset = cp / 0x400000;
    if (/\p{Nd}/u.test(ch)) {
      let k = 0;
      while (k < 9 && /\p{Nd}/u.test(String.fromCodePoint(cp - k - 1))) k++;
      return DIGIT_ZERO + k;
    }
    if (/[\p{P}\p{Z}]/u.test(ch)) return variableTop - 0.5 + offset;
    if (/\p{S}/u.test(ch)) return CURRENCY_FIRST - 0.5 + offset;
    if (/\p{Script=Latin}/u.test(ch) || ch === '\u02bc') return GREEK_FIRST - 0.5 + offset;
    return UNKNOWN_PRIMARY + cp;
  }
  const markWeights = new Map();
  Array.from(COLLATION_MARKS).forEach((m, i) => markWeights.set(m, 100 + i));
  const UNKNOWN_PRIMARY = 0x10000;
  // Letters that ICU sorts as sequences with a secondary difference (ß as "ss", æ as
  // "ae") or as a letter with a secondary mark (ø as o with a solidus).
  const EXPANSIONS = {
    'ß': 'ss', 'ẞ': 'SS', 'æ': 'ae', 'Æ': 'AE', 'œ': 'oe', 'Œ': 'OE', 'ſ': 's',
  };
  const IGNORABLE = /^[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2060-\u2064\ufeff]$/;

  // Collation elements [primary, secondary, tertiary] of a string: primary 0 marks a
  // combining mark; secondary 1 is the common weight, higher for marks and variants;
  // tertiary 0 lower case, 1 upper case, +2 for compatibility variants.
  function collationElements(str, numeric) {
    const out = [];
    const push = (ch, extraTertiary, extraSecondary) => {
      const entry = collationTable.get(ch);
      if (entry) {
        out.push([entry[0], 1 + entry[1] + extraSecondary, entry[2] + extraTertiary]);
        return;
      }
      const mark = markWeights.get(ch);
      if (mark !== undefined) {
        out.push([0, mark, 0]);
        return;
      }
      if (EXPANSIONS[ch] !== undefined) {
        for (const c of EXPANSIONS[ch]) push(c, extraTertiary, extraSecondary + 50);
        return;
      }
      if (ch === 'ø' || ch === 'Ø') {
        push(ch === 'ø' ? 'o' : 'O', extraTertiary, extraSecondary);
        out.push([0, markWeights.get('\u0338'), 0]);
        return;
      }
      if (IGNORABLE.test(ch)) return;
      const compat = stringNormalize(ch, 'NFKD');
      if (compat !== ch) {
        for (const c of compat) push(c, extraTertiary + 2, extraSecondary);
        return;
      }
      if (/\p{M}/u.test(ch)) {
        out.push([0, 300, 0]);
        return;
      }
      const lower = ch.toLowerCase();
      const primary = fallbackPrimary(lower, lower.codePointAt(0));
      out.push([primary, 1 + extraSecondary, (lower !== ch ? 1 : 0) + extraTertiary]);
    };
    const chars = Array.from(stringNormalize(str, 'NFD'));
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i];
      if (numeric && ch >= '0' && ch <= '9') {
        let j = i;
        while (j < chars.length && chars[j] >= '0' && chars[j] <= '9') j++;
        const digits = chars.slice(i, j).join('').replace(/^0+/, '');
        // One element for "a number", one for its length, one per digit: numbers sort
        // among the digits, and by value among themselves.
        out.push([DIGIT_ZERO, 1, 0], [0x100000 + digits.length, 0, 0]);
        for (const d of digits) out.push([DIGIT_ZERO + (d.charCodeAt(0) - 48), 0, 0]);
        i = j - 1;
        continue;
      }
      push(ch, 0, 0);
    }
    return out;
  }

  function compareSequences(a, b) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    }
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }

  function collatorCompare(s, x, y) {
    if (x === y) return 0;
    let a = collationElements(x, s.numeric);
    let b = collationElements(y, s.numeric);
    if (s.ignorePunctuation) {
      const keep = (e) => e[0] === 0 || e[0] > variableTop;
      a = a.filter(keep);
      b = b.filter(keep);
    }
    const level = (ces, k, filter) => {
      const out = [];
      for (const e of ces) if (filter(e)) out.push(k(e));
      return out;
    };
    const prim = (ces) => level(ces, (e) => e[0], (e) => e[0] !== 0);
    let r = compareSequences(prim(a), prim(b));
    if (r !== 0 || s.sensitivity === 'base') return r;
    if (s.sensitivity === 'accent' || s.sensitivity === 'variant') {
      const sec = (ces) => level(ces, (e) => e[1], (e) => e[1] !== 0);
      r = compareSequences(sec(a), sec(b));
      if (r !== 0 || s.sensitivity === 'accent') return r;
    }
    const upperFirst = s.caseFirst === 'upper';
    const caseWeight = (e) => {
      const upper = e[2] & 1;
      return upperFirst ? 1 - upper : upper;
    };
    if (s.sensitivity === 'case') {
      const cs = (ces) => level(ces, caseWeight, (e) => e[0] !== 0);
      return compareSequences(cs(a), cs(b));
    }
    const ter = (ces) => level(ces, (e) => (e[2] & ~1) + caseWeight(e), (e) => e[0] !== 0 || e[1] !== 0);
    return compareSequences(ter(a), ter(b));
  }

  function Collator(locales, options) {
    const collator = new.target === undefined ? objectCreate(Collator.prototype) : this;
    return createCollator(collator, locales, options, 'Intl.Collator');
  }

  function createCollator(collator, locales, options, svc) {
    const resolved = resolveLocale(locales);
    options = toObjectOptions(options, 'Intl.Collator');
    const s = { kind: 'Collator' };
    s.usage = getOption(options, 'usage', 'string', ['sort', 'search'], 'sort', svc);
    getOption(options, 'localeMatcher', 'string', ['lookup', 'best fit'], 'best fit', svc);
    const collation = getOption(options, 'collation', 'string', undefined, undefined, svc);
    if (collation !== undefined && !/^[a-zA-Z0-9]{3,8}(-[a-zA-Z0-9]{3,8})*$/.test(collation)) {
      throw new RangeError('Invalid collation : ' + collation);
    }
    let numeric = getOption(options, 'numeric', 'boolean', undefined, undefined, svc);
    let caseFirst = getOption(options, 'caseFirst', 'string', ['upper', 'lower', 'false'],
      undefined, svc);
    const kw = resolved.keywords;
    const extension = [];
    // As V8 does, a valid keyword stays in the locale even when an option overrides it.
    if (kw.kn === 'true' || kw.kn === 'false') {
      if (numeric === undefined) numeric = kw.kn === 'true';
      extension.push(['kn', kw.kn]);
    }
    if (['upper', 'lower', 'false'].includes(kw.kf)) {
      if (caseFirst === undefined) caseFirst = kw.kf;
      extension.push(['kf', kw.kf]);
    }
    s.numeric = numeric === true;
    s.caseFirst = caseFirst || 'false';
    s.sensitivity = getOption(options, 'sensitivity', 'string',
      ['base', 'accent', 'case', 'variant'], 'variant', svc);
    s.ignorePunctuation = getOption(options, 'ignorePunctuation', 'boolean', undefined, false, svc);
    s.locale = withExtension(resolved.locale, extension.sort((p, q) => (p[0] < q[0] ? -1 : 1)));
    slots.set(collator, s);
    return collator;
  }

  defineProperties(Collator.prototype, {
    resolvedOptions: hidden(function resolvedOptions() {
      const s = slots.get(this);
      if (s === undefined || s.kind !== 'Collator') {
        throw new TypeError('Method Intl.Collator.prototype.resolvedOptions called on incompatible receiver ' +
          receiverName(this));
      }
      return {
        locale: s.locale, usage: s.usage, sensitivity: s.sensitivity,
        ignorePunctuation: s.ignorePunctuation, collation: 'default', numeric: s.numeric,
        caseFirst: s.caseFirst,
      };
    }),
  });
  defineBoundGetter(Collator.prototype, 'compare', 'Collator',
    (s) => function (x, y) { return collatorCompare(s, String(x), String(y)); });
  tag(Collator.prototype, 'Intl.Collator');

  // ---------------------------------------------------------------------------
  // Intl.RelativeTimeFormat (English)
  // ---------------------------------------------------------------------------

  // unit: [long singular, long plural, short singular, short plural, narrow] and the
  // words numeric: "auto" uses for -1, 0, 1 in the long, short and narrow styles.
  const RELATIVE_UNITS = {
    second: [['second', 'seconds', 'sec.', 'sec.', 's'], ['', 'now', ''], ['', 'now', ''], ['', 'now', '']],
    minute: [['minute', 'minutes', 'min.', 'min.', 'm'], ['', 'this minute', ''],
      ['', 'this minute', ''], ['', 'this minute', '']],
    hour: [['hour', 'hours', 'hr.', 'hr.', 'h'], ['', 'this hour', ''], ['', 'this hour', ''],
      ['', 'this hour', '']],
    day: [['day', 'days', 'day', 'days', 'd'], ['yesterday', 'today', 'tomorrow'],
      ['yesterday', 'today', 'tomorrow'], ['yesterday', 'today', 'tomorrow']],
    week: [['week', 'weeks', 'wk.', 'wk.', 'w'], ['last week', 'this week', 'next week'],
      ['last wk.', 'this wk.', 'next wk.'], ['last wk.', 'this wk.', 'next wk.']],
    month: [['month', 'months', 'mo.', 'mo.', 'mo'], ['last month', 'this month', 'next month'],
      ['last mo.', 'this mo.', 'next mo.'], ['last mo.', 'this mo.', 'next mo.']],
    quarter: [['quarter', 'quarters', 'qtr.', 'qtrs.', 'q'],
      ['last quarter', 'this quarter', 'next quarter'], ['last qtr.', 'this qtr.', 'next qtr.'],
      ['last qtr.', 'this qtr.', 'next qtr.']],
    year: [['year', 'years', 'yr.', 'yr.', 'y'], ['last year', 'this year', 'next year'],
      ['last yr.', 'this yr.', 'next yr.'], ['last yr.', 'this yr.', 'next yr.']],
  };
  const STYLE_INDEX = { long: 1, short: 2, narrow: 3 };

  function RelativeTimeFormat(locales, options) {
    if (new.target === undefined) {
      throw new TypeError("Constructor Intl.RelativeTimeFormat requires 'new'");
    }
    const svc = 'Intl.RelativeTimeFormat';
    const locale = extendedLocale(resolveLocale(locales), { nu: 'latn' });
    options = toObjectOptions(options, svc);
    getOption(options, 'localeMatcher', 'string', ['lookup', 'best fit'], 'best fit', svc);
    const nu = getOption(options, 'numberingSystem', 'string', undefined, undefined, svc);
    if (nu !== undefined && !/^[a-zA-Z0-9]{3,8}(-[a-zA-Z0-9]{3,8})*$/.test(nu)) {
      throw new RangeError('Invalid numberingSystem : ' + nu);
    }
    const style = getOption(options, 'style', 'string', ['long', 'short', 'narrow'], 'long', svc);
    const numeric = getOption(options, 'numeric', 'string', ['always', 'auto'], 'always', svc);
    const nf = {};
    setDigitOptions(nf, objectCreate(null), 0, 3, 'standard', svc);
    Object.assign(nf, { style: 'decimal', notation: 'standard', useGrouping: 'auto', signDisplay: 'never' });
    slots.set(this, { kind: 'RelativeTimeFormat', locale, style, numeric, nf });
  }

  function relativeTimeParts(s, value, unit) {
    value = Number(value);
    unit = String(unit);
    const singular = unit.endsWith('s') ? unit.slice(0, -1) : unit;
    const data = RELATIVE_UNITS[singular];
    if (data === undefined) {
      throw new RangeError(`Invalid unit argument for Intl.RelativeTimeFormat.prototype.format() '${unit}'`);
    }
    if (!isFiniteNumber(value)) {
      throw new RangeError('Value need to be finite number for Intl.RelativeTimeFormat.prototype.format()');
    }
    const si = STYLE_INDEX[s.style];
    if (s.numeric === 'auto' && (value === -1 || value === 0 || value === 1)) {
      const word = data[si][value + 1];
      if (word) return [{ type: 'literal', value: word }];
    }
    const past = value < 0 || Object.is(value, -0);
    const numberParts = formatNumberParts(s.nf, value)
      .map((p) => ({ type: p.type, value: p.value, unit: singular }));
    const digits = joinParts(numberParts);
    const one = digits === '1';
    let name;
    if (s.style === 'narrow') name = data[0][4];
    else if (s.style === 'short') name = ' ' + (one ? data[0][2] : data[0][3]);
    else name = ' ' + (one ? data[0][0] : data[0][1]);
    if (past) return [...numberParts, { type: 'literal', value: name + ' ago' }];
    return [{ type: 'literal', value: 'in ' }, ...numberParts, { type: 'literal', value: name }];
  }

  function relativeTimeSlots(rtf, method) {
    const s = slots.get(rtf);
    if (s === undefined || s.kind !== 'RelativeTimeFormat') {
      throw new TypeError(`Method ${method} called on incompatible receiver ${receiverName(rtf)}`);
    }
    return s;
  }

  defineProperties(RelativeTimeFormat.prototype, {
    resolvedOptions: hidden(function resolvedOptions() {
      const s = relativeTimeSlots(this, 'Intl.RelativeTimeFormat.prototype.resolvedOptions');
      return { locale: s.locale, style: s.style, numeric: s.numeric, numberingSystem: 'latn' };
    }),
    format: hidden(function format(value, unit) {
      const s = relativeTimeSlots(this, 'Intl.RelativeTimeFormat.prototype.format');
      return joinParts(relativeTimeParts(s, value, unit));
    }),
    formatToParts: hidden(function formatToParts(value, unit) {
      const s = relativeTimeSlots(this, 'Intl.RelativeTimeFormat.prototype.formatToParts');
      return relativeTimeParts(s, value, unit);
    }),
  });
  tag(RelativeTimeFormat.prototype, 'Intl.RelativeTimeFormat');

  // ---------------------------------------------------------------------------
  // Intl.ListFormat (English)
  // ---------------------------------------------------------------------------

  // type -> style -> [separator of two, separator before the last of more, others]
  const LIST_PATTERNS = {
    conjunction: { long: [' and ', ', and ', ', '], short: [' & ', ', & ', ', '], narrow: [', ', ', ', ', '] },
    disjunction: { long: [' or ', ', or ', ', '], short: [' or ', ', or ', ', '], narrow: [' or ', ', or ', ', '] },
    unit: { long: [', ', ', ', ', '], short: [', ', ', ', ', '], narrow: [' ', ' ', ' '] },
  };

  function ListFormat(locales, options) {
    if (new.target === undefined) throw new TypeError("Constructor Intl.ListFormat requires 'new'");
    const svc = 'Intl.ListFormat';
    if (options === null) throw new TypeError('invalid_argument');
    const { locale } = resolveLocale(locales);
    options = toObjectOptions(options, svc);
    getOption(options, 'localeMatcher', 'string', ['lookup', 'best fit'], 'best fit', svc);
    const type = getOption(options, 'type', 'string', ['conjunction', 'disjunction', 'unit'],
      'conjunction', svc);
    const style = getOption(options, 'style', 'string', ['long', 'short', 'narrow'], 'long', svc);
    slots.set(this, { kind: 'ListFormat', locale, type, style });
  }

  function stringListFromIterable(list) {
    if (list === undefined) return [];
    if (list === null) {
      throw new TypeError('object null is not iterable (cannot read property Symbol(Symbol.iterator))');
    }
    const out = [];
    for (const item of list) {
      if (typeof item !== 'string') {
        throw new TypeError(`Iterable yielded ${typeof item === 'symbol' ? 'Symbol()' : String(item)} which is not a string`);
      }
      out.push(item);
    }
    return out;
  }

  function listParts(s, list) {
    const items = stringListFromIterable(list);
    const [two, last, middle] = LIST_PATTERNS[s.type][s.style];
    const parts = [];
    items.forEach((item, i) => {
      if (i > 0) {
        const sep = items.length === 2 ? two : i === items.length - 1 ? last : middle;
        parts.push({ type: 'literal', value: sep });
      }
      parts.push({ type: 'element', value: item });
    });
    return parts;
  }

  function listFormatSlots(lf, method) {
    const s = slots.get(lf);
    if (s === undefined || s.kind !== 'ListFormat') {
      throw new TypeError(`Method ${method} called on incompatible receiver ${receiverName(lf)}`);
    }
    return s;
  }

  defineProperties(ListFormat.prototype, {
    resolvedOptions: hidden(function resolvedOptions() {
      const s = listFormatSlots(this, 'Intl.ListFormat.prototype.resolvedOptions');
      return { locale: s.locale, type: s.type, style: s.style };
    }),
    format: hidden(function format(list) {
      return joinParts(listParts(listFormatSlots(this, 'Intl.ListFormat.prototype.format'), list));
    }),
    formatToParts: hidden(function formatToParts(list) {
      return listParts(listFormatSlots(this, 'Intl.ListFormat.prototype.formatToParts'), list);
    }),
  });
  tag(ListFormat.prototype, 'Intl.ListFormat');

  // ---------------------------------------------------------------------------
  // The Intl object and the locale-sensitive methods of the built-ins
  // ---------------------------------------------------------------------------

  const Intl = {};
  const SUPPORTED_VALUES = {
    calendar: ['gregory'],
    collation: ['default'],
    currency: objectKeys(CURRENCIES).sort(),
    numberingSystem: ['latn'],
    timeZone: ['UTC'],
    unit: [],
  };
  defineProperties(Intl, {
    getCanonicalLocales: hidden(function getCanonicalLocales(locales) {
      return canonicalizeLocaleList(locales);
    }),
    supportedValuesOf: hidden(function supportedValuesOf(key) {
      key = String(key);
      const values = SUPPORTED_VALUES[key];
      if (values === undefined) throw new RangeError(`Invalid key : ${key}`);
      return values.slice();
    }),
  });
  for (const [name, ctor, length] of [['DateTimeFormat', DateTimeFormat, 0],
    ['NumberFormat', NumberFormat, 0], ['Collator', Collator, 0], ['PluralRules', PluralRules, 0],
    ['RelativeTimeFormat', RelativeTimeFormat, 0], ['ListFormat', ListFormat, 0]]) {
    defineProperty(ctor, 'length', { value: length, configurable: true });
    defineProperty(ctor, 'prototype', { writable: false, enumerable: false, configurable: false });
    defineProperty(ctor.prototype, 'constructor', hidden(ctor));
    defineProperty(ctor, 'supportedLocalesOf', hidden(function supportedLocalesOf_(locales, options) {
      return supportedLocalesOf(locales, options, `Intl.${name}.supportedLocalesOf`);
    }));
    defineProperty(ctor.supportedLocalesOf, 'name', { value: 'supportedLocalesOf', configurable: true });
    defineProperty(Intl, name, hidden(ctor));
  }
  tag(Intl, 'Intl');
  defineProperty(globalThis, 'Intl', hidden(Intl));

  // Formatters for the common calls without options, made on first use.
  let defaultNumberFormat;
  let defaultCollator;

  const numberValueOf = uncurry(Number.prototype.valueOf);
  const thisNumberValue = (value) => {
    if (typeof value === 'number') return value;
    try {
      return numberValueOf(value);
    } catch {
      throw new TypeError("Number.prototype.toLocaleString requires that 'this' be a Number");
    }
  };
  const thisBigIntValue = uncurry(BigInt.prototype.valueOf);

  defineProperty(Number.prototype, 'toLocaleString', hidden({
    toLocaleString(locales, options) {
      const x = thisNumberValue(this);
      if (locales === undefined && options === undefined) {
        if (defaultNumberFormat === undefined) defaultNumberFormat = new NumberFormat();
        return joinParts(formatNumberParts(slots.get(defaultNumberFormat), x));
      }
      const nf = createNumberFormat({}, locales, options, 'Number.prototype.toLocaleString');
      return joinParts(formatNumberParts(slots.get(nf), x));
    },
  }.toLocaleString));
  defineProperty(BigInt.prototype, 'toLocaleString', hidden({
    toLocaleString(locales, options) {
      const x = thisBigIntValue(this);
      const nf = createNumberFormat({}, locales, options, 'BigInt.prototype.toLocaleString');
      return joinParts(formatNumberParts(slots.get(nf), x));
    },
  }.toLocaleString));

  const dateMethods = {
    toLocaleString: ['any', 'all'],
    toLocaleDateString: ['date', 'date'],
    toLocaleTimeString: ['time', 'time'],
  };
  for (const name of objectKeys(dateMethods)) {
    const [required, defaults] = dateMethods[name];
    const method = {
      [name](locales, options) {
        let t;
        try {
          t = dateGetTime(this);
        } catch {
          throw new TypeError(`Method Date.prototype.${name} called on incompatible receiver ${receiverName(this)}`);
        }
        if (Number.isNaN(t)) return 'Invalid Date';
        const dtf = createDateTimeFormat({}, locales, options, required, defaults,
          `Date.prototype.${name}`);
        return formatDate(slots.get(dtf), t);
      },
    }[name];
    defineProperty(Date.prototype, name, hidden(method));
  }

  defineProperty(String.prototype, 'localeCompare', hidden({
    localeCompare(that, locales, options) {
      if (this === undefined || this === null) {
        throw new TypeError('String.prototype.localeCompare called on null or undefined');
      }
      const x = String(this);
      const y = String(that);
      if (locales === undefined && options === undefined) {
        if (defaultCollator === undefined) defaultCollator = new Collator();
        return collatorCompare(slots.get(defaultCollator), x, y);
      }
      const collator = createCollator({}, locales, options, 'String.prototype.localeCompare');
      return collatorCompare(slots.get(collator), x, y);
    },
  }.localeCompare));
  defineProperty(String.prototype.localeCompare, 'length', { value: 1, configurable: true });
  for (const method of [Number.prototype.toLocaleString, BigInt.prototype.toLocaleString,
    Date.prototype.toLocaleString, Date.prototype.toLocaleDateString, Date.prototype.toLocaleTimeString]) {
    defineProperty(method, 'length', { value: 0, configurable: true });
  }
})();
