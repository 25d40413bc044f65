/**
 * `servebench run` (a child process) against a scripted server whose connections die: a request
 * resent after its reused keep-alive socket was reset says so in its own row, the run's totals
 * count it (`servebench.connection_retries`), the server saw planned + resent requests, and
 * `servebench validate` and `rebuild` accept the result; with `--workers` too. A request whose
 * fresh connection is reset is a failure, sent once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { runCli } from '../helpers/cli.js';
import {
  DONE_EVENT,
  deltaEvent,
  rawServer,
  usageEvent,
  writeSse,
  type RawRequest,
  type TestServer,
} from '../helpers/servers.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-resend-'));

/** Which chat request the server resets: the first one arriving on a reused socket, or on a fresh connection. */
type Mode = 'reused' | 'fresh';

let server: TestServer;
let mode: Mode = 'reused';
let chatRequests = 0;
let resetDone = false;

before(async () => {
  const perSocket = new WeakMap<Socket, number>();
  server = await rawServer((socket, req: RawRequest) => {
    const nth = (perSocket.get(socket) ?? 0) + 1;
    perSocket.set(socket, nth);
    if (req.head.startsWith('GET')) {
      const body = JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model', max_model_len: 32768 }] });
      socket.write(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      return;
    }
    chatRequests++;
    if (!resetDone && (mode === 'reused' ? nth > 1 : nth === 1)) {
      resetDone = true;
      socket.resetAndDestroy();
      return;
    }
    void writeSse(socket, [
      deltaEvent({ content: 'hi' }),
      usageEvent({ prompt_tokens: 300, completion_tokens: 1, total_tokens: 301 }),
      DONE_EVENT,
    ]);
  });
});
after(() => server.close());

interface Attempt {
  attempt: number;
  kind: string;
  error_type: string;
  start_offset_ms: number;
  error_at_ms: number;
}
interface Result {
  completed: number;
  failed: number;
  request_timings: { request_index: number; start_offset_ms: number; attempts?: Attempt[] }[];
  failures: { request_index: number; error_type: string; attempts?: Attempt[] }[];
  servebench: { connection_retries: number; retries?: unknown };
}

/** One run of 4 requests in `mode`; returns its exit code, result and the chat requests the server received. */
async function run(
  name: string,
  runMode: Mode,
  extra: string[],
): Promise<{ code: number | null; stderr: string; path: string; result: Result; received: number }> {
  mode = runMode;
  chatRequests = 0;
  resetDone = false;
  const path = join(dir, `${name}.json`);
  const out = await runCli([
    'run',
    '--base-url',
    `${server.url}/v1`,
    '--model',
    'm',
    '--max-model-len',
    '32768',
    '--tokenizer',
    'chars:3.0',
    '--ctx-tokens',
    '1000',
    '--max-tokens',
    '4',
    '--requests',
    '4',
    '--quiet',
    '--output',
    path,
    ...extra,
  ]);
  return {
    code: out.code,
    stderr: out.stderr,
    path,
    result: JSON.parse(readFileSync(path, 'utf8')) as Result,
    received: chatRequests,
  };
}

describe('servebench run: a resend after a dead connection is in the record', () => {
  for (const [name, extra] of [
    ['one thread', ['--concurrency', '1']],
    ['--workers 2', ['--concurrency', '2', '--workers', '2']],
  ] as const) {
    it(`${name}: a reused socket reset as the request arrives → resent, shown in its row, counted, valid`, async () => {
      const { code, stderr, path, result, received } = await run(`reused-${name.replace(/\W+/g, '')}`, 'reused', [
        ...extra,
      ]);
      assert.equal(code, 0, stderr);
      assert.equal(result.completed, 4);
      assert.equal(result.failed, 0);
      const resent = result.request_timings.filter((row) => row.attempts !== undefined);
      assert.equal(resent.length, 1, JSON.stringify(result.request_timings));
      assert.deepEqual(
        resent[0]!.attempts!.map((a) => [a.attempt, a.kind, a.error_type]),
        [[1, 'stale-connection', 'ConnectionResetError']],
      );
      assert.ok(
        resent[0]!.start_offset_ms > resent[0]!.attempts![0]!.start_offset_ms,
        'timed from the resend (default clock)',
      );
      assert.equal(result.servebench.connection_retries, 1);
      assert.equal(result.servebench.retries, undefined, 'no --retries, so no retries block');
      assert.equal(received, 4 + result.servebench.connection_retries, 'the server saw planned + resent requests');

      const validate = await runCli(['validate', path]);
      assert.equal(validate.code, 0, validate.stdout + validate.stderr);
      const rebuilt = join(dir, `rebuilt-${name.replace(/\W+/g, '')}.json`);
      const rebuild = await runCli(['rebuild', path.replace(/\.json$/, '.journal.jsonl'), '--output', rebuilt]);
      assert.equal(rebuild.code, 0, rebuild.stderr);
      assert.deepEqual(
        (JSON.parse(readFileSync(rebuilt, 'utf8')) as Result).request_timings,
        result.request_timings,
        'the journal keeps the attempts',
      );
    });
  }

  it('--cold-connections: a fresh connection reset after the request was read → a failure, sent once', async () => {
    const { code, result, received } = await run('fresh', 'fresh', ['--concurrency', '1', '--cold-connections']);
    assert.equal(code, 1, 'some requests failed');
    assert.equal(result.completed, 3);
    assert.deepEqual(
      result.failures.map((f) => [f.error_type, f.attempts]),
      [['ConnectionResetError', undefined]],
    );
    assert.equal(result.servebench.connection_retries, 0);
    assert.equal(received, 4, 'nothing was resent');
  });
});
