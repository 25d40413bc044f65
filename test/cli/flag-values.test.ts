/**
 * Numeric flag values: a number too large to hold is reported with the flag's range, not as a
 * syntax error; a run whose load model would ignore a typed flag is refused. Each is one line on
 * stderr and exit 2, before anything is sent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags } from '../../src/cli/parse.js';
import { RUN_FLAGS } from '../../src/cli/options.js';
import { UsageError } from '../../src/util/errors.js';
import { runCli } from '../helpers/cli.js';

const SAFE = '9007199254740991';

const refused: [string[], string][] = [
  [['--seed', '1e20'], `--seed: 1e20 is out of range [-${SAFE}, ${SAFE}]`],
  [['--seed', '100000000000000000000'], `--seed: 100000000000000000000 is out of range [-${SAFE}, ${SAFE}]`],
  [['--seed=-9007199254740993'], `--seed: -9007199254740993 is out of range [-${SAFE}, ${SAFE}]`],
  [['--requests', '99999999999999999999'], '--requests: 99999999999999999999 is out of range [1, 20000000]'],
  [['--rate', '1e400'], '--rate: 1e400 is out of range (0, 100000]'],
  // Not numbers, or not whole: still a syntax problem.
  [['--seed', '1.5'], "--seed: expected an integer, got '1.5'"],
  [['--seed', 'ten'], "--seed: expected an integer, got 'ten'"],
];

for (const [args, message] of refused) {
  test(`${args.join(' ')}: ${message}`, () => {
    assert.throws(
      () => parseFlags(args, RUN_FLAGS),
      (error: unknown) => error instanceof UsageError && error.message === message,
    );
  });
}

test('the largest safe seed is accepted', () => {
  assert.equal(parseFlags(['--seed', SAFE], RUN_FLAGS).values['seed'], Number.MAX_SAFE_INTEGER);
  assert.equal(parseFlags([`--seed=-${SAFE}`], RUN_FLAGS).values['seed'], -Number.MAX_SAFE_INTEGER);
});

test('servebench run: one line, exit 2, for an out-of-range seed and for --rate with --concurrency', async () => {
  for (const [args, line] of [
    [['--seed', '1e20'], `servebench run: --seed: 1e20 is out of range [-${SAFE}, ${SAFE}]`],
    [
      ['--rate', '5', '--concurrency', '8'],
      "servebench run: --concurrency sets a closed loop's workers; with --rate use --max-concurrency N to cap the requests in flight",
    ],
  ] as const) {
    const run = await runCli(['run', '--dry-run', ...args]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(run.stderr, `${line}\n`);
    assert.equal(run.stdout, '');
  }
});
