/**
 * The CLI as a user runs it, against a separate simulator process injecting faults, among them
 * `echo_headers` (a 500 whose body holds the request's headers raw, URL-encoded and base64). The
 * run must end normally (exit 1: some requests failed; result and journal written), and the planted
 * API key must appear in no output at all — stdout, stderr, the result, the journal, any other
 * file the run left, and what `show`, `validate` and `rebuild` print or write from them — in any
 * form: raw, JSON-escaped, URL-encoded, base64 or base64url at any byte alignment.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliRun } from '../helpers/cli.js';
import { startSimProcess, type SimProcess } from '../helpers/sim-process.js';
import { leakedForms, PLANTED_KEY } from '../helpers/secrets.js';

let sim: SimProcess;
before(async () => {
  sim = await startSimProcess({
    decode_step_ms: 2,
    prefill_tok_s: 2e6,
    faults:
      'rate=0.5:mix=echo_headers,echo_headers,http_500_text,http_429:0.05,stream_error,malformed_json,reset_mid,invalid_utf8,gzip,huge_line,stall_first:2:seed=5',
  });
});
after(() => sim.stop());

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

async function run(
  dir: string,
  extra: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ cli: CliRun; outputs: Map<string, string> }> {
  const args = [
    'run',
    '--base-url',
    sim.url,
    '--requests',
    '40',
    '--concurrency',
    '8',
    '--max-tokens',
    '8',
    '--ctx-tokens',
    '300',
    '--shared-prefix-tokens',
    '0',
    '--timeout',
    '1',
    '--retries',
    '1',
    '--retry-max-wait',
    '0.05',
    '--output',
    join(dir, 'result.json'),
    ...extra,
  ];
  const cli = await runCli(args, { cwd: dir, env: { ...process.env, ...env }, timeoutMs: 90_000 });
  const outputs = new Map<string, string>([
    ['stdout', cli.stdout],
    ['stderr', cli.stderr],
  ]);
  // What a person does next with the result: read it back, check it, rebuild it from the journal.
  for (const command of [
    ['show', 'result.json'],
    ['validate', 'result.json'],
    ['rebuild', 'result.journal.jsonl', '--output', join(dir, 'rebuilt.json')],
  ]) {
    const after = await runCli(command, { cwd: dir, env: { ...process.env, ...env } });
    outputs.set(`${command[0]} stdout`, after.stdout);
    outputs.set(`${command[0]} stderr`, after.stderr);
  }
  for (const file of filesUnder(dir)) outputs.set(file, readFileSync(file, 'latin1'));
  return { cli, outputs };
}

function checkRun({ cli, outputs }: { cli: CliRun; outputs: Map<string, string> }, dir: string): void {
  assert.equal(cli.signal, null, 'the process was not killed');
  assert.equal(cli.code, 1, `exit 1 (some requests failed), got ${cli.code}: ${cli.stderr.slice(-2000)}`);
  assert.doesNotMatch(cli.stderr, /internal error|Unhandled|TypeError|at .*\.js:\d+/);
  const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as {
    requests: number;
    completed: number;
    failed: number;
    failures: { error_type: string; http_status: number | null; error_body_excerpt: string | null }[];
  };
  assert.equal(result.completed + result.failed, result.requests);
  assert.ok(outputs.has(join(dir, 'result.journal.jsonl')), 'the journal is written beside the result');
  // The key really reached the server and came back: the echo is in the result, redacted.
  const echoes = result.failures.filter(
    (f) => f.http_status === 500 && (f.error_body_excerpt ?? '').includes('"authorization"'),
  );
  assert.ok(echoes.length > 0, 'at least one echo_headers failure');
  for (const echo of echoes) assert.match(echo.error_body_excerpt!, /\[REDACTED\]/);
  for (const [where, text] of outputs)
    assert.deepEqual(leakedForms(text, PLANTED_KEY), [], `the key leaked into ${where}`);
  // And the search can find it: the forms are present in what was sent (a self-check of the search).
  assert.ok(
    leakedForms(`Authorization: Bearer ${Buffer.from(`x${PLANTED_KEY}`).toString('base64')}`, PLANTED_KEY).length > 0,
  );
}

test('--api-key-env: faults end as records, exit 1, and the key is in no output', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-leak-env-'));
  checkRun(await run(dir, ['--api-key-env', 'SERVEBENCH_PLANTED_KEY'], { SERVEBENCH_PLANTED_KEY: PLANTED_KEY }), dir);
});

test('--api-key-file with --json (the result on stdout): same, and a readable key file is warned about', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-leak-file-'));
  const keyDir = mkdtempSync(join(tmpdir(), 'servebench-key-'));
  const keyFile = join(keyDir, 'key');
  writeFileSync(keyFile, `${PLANTED_KEY}\n`);
  chmodSync(keyFile, 0o644);
  const outcome = await run(dir, ['--api-key-file', keyFile, '--json'], {});
  checkRun(outcome, dir);
  assert.match(
    outcome.cli.stderr,
    /warning: --api-key-file .* is accessible to its group and everyone \(mode 644\); chmod 600 it/,
  );
  assert.equal(
    (JSON.parse(outcome.cli.stdout) as { servebench: { config: { api_key_file: string } } }).servebench.config
      .api_key_file,
    keyFile,
  );
});
