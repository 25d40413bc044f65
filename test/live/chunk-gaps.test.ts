/** The bulk-fed chunk-gap histogram against a direct count of the gaps (fast-check). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ChunkGapHistogram, escapeLabelValue } from '../../src/live/chunk-gaps.js';
import { samples } from '../helpers/exposition-samples.js';

const BOUNDS = [0.001, 0.01, 0.1, 1];

/** Non-decreasing offsets, as a stream's chunk arrival times are. */
const offsets = fc
  .array(fc.double({ min: 0, max: 2, noNaN: true }), { maxLength: 40 })
  .map((steps) => steps.reduce<number[]>((acc, step) => [...acc, (acc.at(-1) ?? 0) + step], []));

test('every bucket counts the gaps at or below its bound; sum and count are the gaps’', () => {
  fc.assert(
    fc.property(fc.array(offsets, { maxLength: 6 }), (streams) => {
      const histogram = new ChunkGapHistogram('x_seconds', 'help', BOUNDS);
      const gaps: number[] = [];
      for (const stream of streams) {
        histogram.observeGaps(stream);
        for (let i = 1; i < stream.length; i++) gaps.push(stream[i]! - stream[i - 1]!);
      }
      const read = samples(histogram.exposition('a="b"'));
      const bucket = (le: string): number =>
        read.find((s) => s.name === 'x_seconds_bucket' && s.labels['le'] === le)!.value;
      for (const bound of BOUNDS) assert.equal(bucket(String(bound)), gaps.filter((g) => g <= bound).length);
      assert.equal(bucket('+Inf'), gaps.length);
      assert.equal(read.find((s) => s.name === 'x_seconds_count')!.value, gaps.length);
      const sum = read.find((s) => s.name === 'x_seconds_sum')!.value;
      assert.ok(Math.abs(sum - gaps.reduce((a, b) => a + b, 0)) <= 1e-9 * Math.max(1, gaps.length));
      for (const s of read) assert.equal(s.labels['a'], 'b');
    }),
  );
});

test('before its labels are bound the family is its HELP and TYPE alone', () => {
  const text = new ChunkGapHistogram('x_seconds', 'help', BOUNDS).exposition(null);
  assert.equal(text, '# HELP x_seconds help\n# TYPE x_seconds histogram\n');
});

test('label values escape backslash, quote and newline as the text format requires', () => {
  assert.equal(escapeLabelValue('a\\b"c\nd'), 'a\\\\b\\"c\\nd');
});
