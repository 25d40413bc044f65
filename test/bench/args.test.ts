import { test } from 'node:test';
import assert from 'node:assert/strict';
import { numberArg, numberListArg } from '../../bench/args.js';

test('bench numbers: each kind takes what it says and names the flag otherwise', () => {
  assert.equal(numberArg('--streams', '256', 'count'), 256);
  assert.equal(numberArg('--warmup-rounds', '0', 'whole'), 0);
  assert.equal(numberArg('--step-ms', '0.5', 'positive'), 0.5);
  assert.equal(numberArg('--ramp', '0', 'non-negative'), 0);
  assert.deepEqual(numberListArg('--streams', '64,256,1024', 'count'), [64, 256, 1024]);
  const refused: [string, string | undefined, Parameters<typeof numberArg>[2]][] = [
    ['--streams', '0', 'count'],
    ['--streams', '1.5', 'count'],
    ['--streams', 'x', 'count'],
    ['--streams', '', 'count'],
    ['--streams', undefined, 'count'],
    ['--warmup-rounds', '-1', 'whole'],
    ['--step-ms', '0', 'positive'],
    ['--ramp', '-0.1', 'non-negative'],
    ['--ramp', 'Infinity', 'non-negative'],
  ];
  for (const [flag, text, kind] of refused) {
    assert.throws(
      () => numberArg(flag, text, kind),
      (error: Error) => error.message.startsWith(`${flag}: expected `) && error.message.includes(`got '${text ?? ''}'`),
      `${flag} ${String(text)}`,
    );
  }
  assert.throws(
    () => numberListArg('--streams', '64,,256', 'count'),
    /--streams: expected a whole number of at least 1, got ''/,
  );
});
