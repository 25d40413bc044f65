/**
 * The one parser's particular rules, by example: an optional value is taken only when valid, list
 * flags, `--`, positional counts, each command's wording, and help for every command from its table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandSpec } from '../../src/cli/command-flags.js';
import { parseCommand } from '../../src/cli/args/parse.js';
import { main } from '../../src/cli/main.js';
import { UsageError } from '../../src/util/errors.js';

function refused(argv: string[], command: string, message: string | RegExp): void {
  assert.throws(
    () => parseCommand(argv, commandSpec(command)),
    (error: unknown) => {
      assert.ok(error instanceof UsageError, String(error));
      if (typeof message === 'string') assert.equal(error.message, message);
      else assert.match(error.message, message);
      return true;
    },
  );
}

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    env: {},
    cwd: process.cwd(),
    isTTY: false,
    onSignal: () => () => {},
    now: () => new Date(),
  });
  return { code, out, err };
}

test('compare --allow-mismatch takes the next word only when it is a list of identity fields', () => {
  const spec = commandSpec('compare');
  const fields = parseCommand(['--allow-mismatch', 'model,max_tokens', 'a.json', 'b.json'], spec);
  assert.deepEqual(fields.values['allow-mismatch'], ['model', 'max_tokens']);
  assert.deepEqual(fields.positionals, ['a.json', 'b.json']);
  const bare = parseCommand(['--allow-mismatch', 'a.json', 'b.json'], spec);
  assert.equal(bare.values['allow-mismatch'], true);
  assert.deepEqual(bare.positionals, ['a.json', 'b.json']);
  const repeated = parseCommand(['a.json', '--allow-mismatch=model', 'b.json', '--allow-mismatch', 'warmup'], spec);
  assert.deepEqual(repeated.values['allow-mismatch'], ['model', 'warmup']);
  assert.equal(
    parseCommand(['--allow-mismatch=model', '--allow-mismatch', 'a.json', 'b.json'], spec).values['allow-mismatch'],
    true,
    'a bare one allows every field',
  );
  refused(
    ['--allow-mismatch=nope', 'a.json', 'b.json'],
    'compare',
    /^--allow-mismatch: expected one of model, .*, got 'nope'$/,
  );
});

test('sweep lists: comma-separated, bounded, no repeats; a value flag without its value is refused (it once started a sweep)', () => {
  const spec = commandSpec('sweep');
  assert.deepEqual(parseCommand(['--concurrency', '8,1,4'], spec).values['concurrency'], [8, 1, 4]);
  assert.deepEqual(parseCommand(['--rate=0.5,2'], spec).values['rate'], [0.5, 2]);
  refused(
    ['--concurrency', '1,x'],
    'sweep',
    "--concurrency: expected a comma-separated list of integers in [1, 100000], got '1,x'",
  );
  refused(
    ['--concurrency', '1.5'],
    'sweep',
    "--concurrency: expected a comma-separated list of integers in [1, 100000], got '1.5'",
  );
  refused(['--rate', '0,1'], 'sweep', "--rate: expected a comma-separated list of numbers in (0, 100000], got '0,1'");
  refused(['--concurrency', '2,2'], 'sweep', '--concurrency: the list repeats a value');
  refused(['--rate', '1', '--output-dir'], 'sweep', "Option '--output-dir <value>' argument missing");
  refused(
    ['--rate', '1', '--journal', 'j.jsonl'],
    'sweep',
    '--journal does not apply to a sweep (each point is a run of its own, writing its own file under --output-dir)',
  );
  assert.equal(
    parseCommand(['--rate', '1', '--requests', '7'], spec).values['requests'],
    7,
    'run flags apply to every point',
  );
});

test('positional arguments: counted by the table, and `--` ends the flags', () => {
  refused([], 'show', 'no result file given (usage: servebench show FILE [--json] [--all] [--format NAME])');
  refused(
    ['a.json', 'b.json'],
    'show',
    'show takes one result file, got 2 (usage: servebench show FILE [--json] [--all] [--format NAME])',
  );
  refused(['a.json'], 'compare', /^compare needs at least two result files, got 1 \(usage: /);
  refused([], 'rebuild', 'no journal file given (usage: servebench rebuild JOURNAL [--output FILE])');
  refused(['x'], 'sim', "Unexpected argument 'x'. This command does not take positional arguments");
  assert.deepEqual(parseCommand(['--', '--json'], commandSpec('show')).positionals, ['--json']);
  assert.deepEqual(parseCommand(['--help'], commandSpec('show')).positionals, [], 'help needs no file');
});

test('each command keeps its wording for a bad number; every one names the flag', () => {
  refused(['--requests', '0'], 'run', '--requests: 0 is out of range [1, 20000000]');
  refused(
    ['--seed', '4294967296', 'a', 'b'],
    'compare',
    "--seed: expected an integer in [0, 4294967295], got '4294967296'",
  );
  refused(['--max-depth', '65', 'd'], 'list', "--max-depth: expected an integer in [0, 64], got '65'");
  refused(['--port', '70000'], 'sim', "--port must be an integer from 0 to 65535, got '70000'");
  refused(['--host', ' '], 'sim', '--host must not be empty');
  refused(['--html', '', 'f.json'], 'report', '--html: must not be empty');
  refused(['--since', '2026-02-30', 'd'], 'list', "--since: expected a date YYYY-MM-DD, got '2026-02-30'");
  refused(
    ['--seed', '-1'],
    'run',
    /^Option '--seed' argument is ambiguous: '-1' looks like a flag \(a value starting with a dash is written --seed=-1\)$/,
  );
  refused(['--json=1', 'f.json'], 'validate', "Option '--json' does not take an argument");
});

test('every command prints the help its table generates, with -h as with --help', async () => {
  for (const name of ['run', 'sweep', 'compare', 'list', 'report', 'rebuild', 'validate', 'show', 'sim']) {
    const long = await cli([name, '--help']);
    const short = await cli([name, '-h']);
    assert.equal(long.code, 0, name);
    assert.equal(short.out, long.out, name);
    assert.match(long.out, new RegExp(`^usage: servebench ${name}`));
    assert.match(long.out, /\n\nExit status: 0/);
  }
  const sweep = await cli(['sweep', '--help']);
  assert.match(sweep.out, /Every other flag is a 'servebench run' flag/);
  assert.match(sweep.out, /--max-tokens N/);
  assert.doesNotMatch(sweep.out, /^ {2}--dry-run/m);
});
