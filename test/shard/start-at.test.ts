/** `--start-at`: absolute instants only (a zone is required), epoch ms, one line for anything else. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseStartAt, startAtIsPast, startAtPastError } from '../../src/shard/start-at.js';
import { UsageError } from '../../src/util/errors.js';

test('ISO 8601 with Z or an offset, with or without seconds and fractions', () => {
  assert.equal(parseStartAt('2026-01-31T12:00:00Z'), Date.UTC(2026, 0, 31, 12));
  assert.equal(parseStartAt('2026-01-31T12:00Z'), Date.UTC(2026, 0, 31, 12));
  assert.equal(parseStartAt('2026-01-31T13:30:00+01:30'), Date.UTC(2026, 0, 31, 12));
  assert.equal(parseStartAt('2026-01-31T07:00:00-0500'), Date.UTC(2026, 0, 31, 12));
  assert.equal(parseStartAt('2026-01-31 12:00:00.25z'), Date.UTC(2026, 0, 31, 12) + 250);
  assert.equal(parseStartAt('2024-02-29T00:00:00.0005Z'), Date.UTC(2024, 1, 29) + 0.5);
});

test('epoch milliseconds, whole or decimal', () => {
  assert.equal(parseStartAt('1769860800000'), 1_769_860_800_000);
  assert.equal(parseStartAt('1769860800000.5'), 1_769_860_800_000.5);
  assert.equal(parseStartAt(' 0 '), 0);
});

const BAD: Array<[string, RegExp]> = [
  ['2026-01-31T12:00:00', /add a zone/],
  ['2026-01-31 12:00', /add a zone/],
  ['2026-01-31', /expected an ISO 8601 time with a zone/],
  ['tomorrow', /expected an ISO 8601/],
  ['', /expected an ISO 8601/],
  ['-5', /expected an ISO 8601/],
  ['1e12', /expected an ISO 8601/],
  ['2026-13-01T00:00Z', /month/],
  ['2025-02-29T00:00Z', /has no day 29/],
  ['2026-04-31T00:00Z', /has no day 31/],
  ['2026-01-01T24:00Z', /hour/],
  ['2026-01-01T00:60Z', /minute/],
  ['2026-01-01T00:00:60Z', /second/],
  ['2026-01-01T00:00+24:00', /zone offset/],
  ['9999999999999999', /beyond the year/],
  ['2026-01-31T12:00:00Z\nrm -rf', /expected an ISO 8601/],
];

test('anything else is one UsageError line starting with --start-at', () => {
  for (const [text, why] of BAD) {
    assert.throws(
      () => parseStartAt(text),
      (error: unknown) => {
        assert.ok(error instanceof UsageError, text);
        assert.match(error.message, /^--start-at /, text);
        assert.match(error.message, why, text);
        assert.ok(!error.message.includes('\n'), text);
        return true;
      },
    );
  }
});

/** Formats `ms` (whole) in the zone `zoneMinutes` east of UTC, as a person would write it. */
function isoInZone(ms: number, zoneMinutes: number): string {
  const shifted = new Date(ms + zoneMinutes * 60_000).toISOString().slice(0, -1);
  const sign = zoneMinutes < 0 ? '-' : '+';
  const abs = Math.abs(zoneMinutes);
  const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${shifted}${zone}`;
}

test('property: an instant written in any zone parses back to itself', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 2 ** 31 - 1 }).map((s) => s * 1000),
      fc.integer({ min: 0, max: 999 }),
      fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
      (seconds, millis, zone) => {
        const ms = seconds + millis;
        assert.equal(parseStartAt(isoInZone(ms, zone)), ms);
        assert.equal(parseStartAt(new Date(ms).toISOString()), ms);
      },
    ),
    { numRuns: 1000 },
  );
});

test('property: epoch milliseconds parse to their value', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: 0, max: 2 ** 20 }), (a, b) => {
      const ms = a * 2 ** 20 + b;
      assert.equal(parseStartAt(String(ms)), ms);
    }),
    { numRuns: 500 },
  );
});

test('property: any other text is a UsageError of one line, never a number of no meaning', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 40 }), (text) => {
      try {
        const ms = parseStartAt(text);
        assert.ok(Number.isFinite(ms) && ms >= 0, JSON.stringify(text));
      } catch (error) {
        assert.ok(error instanceof UsageError, JSON.stringify(text));
        assert.match(error.message, /^--start-at /);
        assert.ok(!error.message.includes('\n'));
      }
    }),
    { numRuns: 2000 },
  );
});

test('a start past by more than the tolerance is refused, naming how far and hinting at seconds', () => {
  assert.equal(startAtIsPast(1000, 1500, 1000), false);
  assert.equal(startAtIsPast(1000, 2001, 1000), true);
  assert.equal(startAtIsPast(5000, 1000, 0), false);
  const error = startAtPastError(1_769_860_800_000, 1_769_860_805_500);
  assert.ok(error instanceof UsageError);
  assert.match(error.message, /^--start-at 2026-01-31T12:00:00\.000Z: already past by 5\.500 s/);
  assert.match(startAtPastError(1_769_860_800, 1_769_860_805_500).message, /looks like seconds/);
});
