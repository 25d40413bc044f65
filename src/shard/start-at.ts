/**
 * `--start-at TIME`: a common start for shards that have no rendezvous, given on each shard's
 * command line. Only absolute instants are accepted: an ISO 8601 date-time with an explicit zone
 * (`Z` or `±hh:mm`), or epoch milliseconds. A local time without a zone would mean a different
 * instant on machines in different zones, which is exactly the mistake a common start must not
 * allow, so it is refused. Parsed by hand rather than with `Date.parse`, which accepts (and
 * guesses at) many other forms.
 */
import { UsageError } from '../util/errors.js';

const ISO_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;
const EPOCH_PATTERN = /^\d{1,16}(?:\.\d{1,6})?$/;
const QUOTE_LIMIT = 80;
const MS_PER_DAY = 86_400_000;
/** The last instant a JavaScript Date can hold. */
const MAX_DATE_MS = 8.64e15;

/** The instant `text` names, in epoch ms (may be fractional); a {@link UsageError} of one line otherwise. */
export function parseStartAt(text: string): number {
  const fail = (why: string): UsageError => new UsageError(`--start-at ${quote(text)}: ${why}`);
  const trimmed = text.trim();
  if (EPOCH_PATTERN.test(trimmed)) {
    const ms = Number(trimmed);
    if (ms > MAX_DATE_MS) throw fail('epoch milliseconds beyond the year 275760');
    return ms;
  }
  const match = ISO_PATTERN.exec(trimmed);
  if (match === null) {
    if (/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?$/.test(trimmed)) {
      throw fail('add a zone (Z or +hh:mm): a time without one names a different instant on each machine');
    }
    throw fail('expected an ISO 8601 time with a zone (2026-01-31T12:00:00Z, …+01:00) or epoch milliseconds');
  }
  const [, y, mo, d, h, mi, s, frac, zulu, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  if (month < 1 || month > 12) throw fail('the month must be 01 to 12');
  if (day < 1 || day > daysInMonth(year, month)) throw fail(`${y}-${mo} has no day ${d}`);
  if (hour > 23) throw fail('the hour must be 00 to 23');
  if (minute > 59) throw fail('the minute must be 00 to 59');
  if (second > 59) throw fail('the second must be 00 to 59');
  let zoneMinutes = 0;
  if (zulu === undefined) {
    const zh = Number(oh);
    const zm = Number(om);
    if (zh > 23 || zm > 59) throw fail('the zone offset must be at most ±23:59');
    zoneMinutes = (sign === '-' ? -1 : 1) * (zh * 60 + zm);
  }
  const fractionMs = frac === undefined ? 0 : Number(`0.${frac}`) * 1000;
  const wholeMs =
    daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute - zoneMinutes) * 60 + second) * 1000;
  return wholeMs + fractionMs;
}

/**
 * Whether a start at `startMs` is already past at `nowMs` by more than `toleranceMs`, so the run
 * should refuse it (a start a little past still starts at once; one far past means a stale command
 * line, or seconds given where milliseconds were meant).
 */
export function startAtIsPast(startMs: number, nowMs: number, toleranceMs: number): boolean {
  return nowMs - startMs > toleranceMs;
}

/** The one line for a start refused as past (see {@link startAtIsPast}). */
export function startAtPastError(startMs: number, nowMs: number): UsageError {
  const seconds = (nowMs - startMs) / 1000;
  const hint = startMs < 1e11 ? ' (it looks like seconds: --start-at takes epoch milliseconds)' : '';
  return new UsageError(
    `--start-at ${new Date(startMs).toISOString()}: already past by ${seconds.toFixed(3)} s (now ${new Date(nowMs).toISOString()})${hint}`,
  );
}

function quote(text: string): string {
  return JSON.stringify(text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}…` : text);
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  return [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (negative before), by whole-number arithmetic. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
