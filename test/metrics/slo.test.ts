import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSlo } from '../../src/metrics/slo.js';
import { UsageError } from '../../src/util/errors.js';

/** The one-line UsageError message parseSlo throws for `text`. */
function errorOf(text: string): string {
  try {
    parseSlo(text);
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    assert.ok(!error.message.includes('\n'), 'one line');
    return error.message;
  }
  assert.fail(`parseSlo(${JSON.stringify(text)}) did not throw`);
}

describe('parseSlo', () => {
  it('parses every metric, percentile spelling, unit and the whitespace around them', () => {
    const slo = parseSlo(
      ' ttft_p95<=2000 , itl_p99.9 <= 100ms,e2e_p99<=30000,decode_p50>=20tok/s,ttfo_p90<=1.5e3,gen_p999<=800 ms',
    );
    assert.equal(slo.text, 'ttft_p95<=2000,itl_p99.9<=100,e2e_p99<=30000,decode_p50>=20,ttfo_p90<=1500,gen_p99.9<=800');
    assert.deepEqual(
      slo.clauses.map((c) => [c.metric, c.percentile, c.op, c.threshold, c.unit]),
      [
        ['ttft', 95, '<=', 2000, 'ms'],
        ['itl', 99.9, '<=', 100, 'ms'],
        ['e2e', 99, '<=', 30000, 'ms'],
        ['decode', 50, '>=', 20, 'tok/s'],
        ['ttfo', 90, '<=', 1500, 'ms'],
        ['gen', 99.9, '<=', 800, 'ms'],
      ],
    );
  });

  it('is case-insensitive in names and units, and accepts fractional thresholds', () => {
    assert.equal(parseSlo('TTFT_P50<=0.5MS').text, 'ttft_p50<=0.5');
  });

  it('names the offending clause in one line, for each kind of mistake', () => {
    const cases: [string, string][] = [
      ['', '--slo is empty: expected clauses such as ttft_p95<=2000,itl_p95<=100'],
      ['ttft_p95<=2000,', '--slo clause 2 of 2: empty clause (two commas, or a comma at an end)'],
      ['ttft<=2000', "--slo clause 'ttft<=2000': expected <metric>_<percentile><=<threshold>, e.g. ttft_p95<=2000"],
      [
        'tpot_p95<=50',
        "--slo clause 'tpot_p95<=50': unknown metric 'tpot' (expected one of ttft, ttfo, e2e, itl, gen, decode)",
      ],
      [
        'ttft_p97<=2000',
        "--slo clause 'ttft_p97<=2000': unknown percentile 'p97' (expected p50, p90, p95, p99 or p99.9)",
      ],
      ['ttft_p95 2000', "--slo clause 'ttft_p95 2000': missing comparison: expected <= after ttft_p95"],
      ['ttft_p95>=2000', "--slo clause 'ttft_p95>=2000': ttft is a latency: use <= (at most), not >="],
      ['ttft_p95<2000', "--slo clause 'ttft_p95<2000': ttft is a latency: use <= (at most), not <"],
      ['decode_p50<=20', "--slo clause 'decode_p50<=20': decode is a rate: use >= (at least), not <="],
      ['ttft_p95<=', "--slo clause 'ttft_p95<=': missing threshold after <="],
      ['ttft_p95<=fast', "--slo clause 'ttft_p95<=fast': threshold 'fast' is not a number"],
      ['ttft_p95<=1.2.3', "--slo clause 'ttft_p95<=1.2.3': threshold '1.2.3' is not a number"],
      ['ttft_p95<=2s', "--slo clause 'ttft_p95<=2s': unit 's' does not fit ttft (use ms, or no unit)"],
      ['decode_p50>=20ms', "--slo clause 'decode_p50>=20ms': unit 'ms' does not fit decode (use tok/s, or no unit)"],
      ['ttft_p95<=0', "--slo clause 'ttft_p95<=0': threshold must be a positive number, got 0"],
      ['ttft_p95<=-5', "--slo clause 'ttft_p95<=-5': threshold must be a positive number, got -5"],
    ];
    for (const [text, message] of cases) assert.equal(errorOf(text), message, text);
  });
});
