// The host's TZ (set far from UTC by the runner) does not reach the guest.
const d = new Date(2020, 5, 15, 12, 30);
return [new Date(0).getTimezoneOffset(), d.getTimezoneOffset(), d.toISOString(),
  new Date(0).toString(), String(new Date(1e12)).match(/GMT[+-]\d{4} \(.*\)$/)[0],
  typeof Intl === 'object' ? new Intl.DateTimeFormat().resolvedOptions().timeZone : 'UTC'];
