/**
 * `--endpoint` end to end against the simulator (docs/endpoints.md): `servebench run` (a child
 * process) drives each API through the simulator's real sockets.
 * - Clean runs: every request completes, the result has the endpoint's protocol label, and the
 *   usage the client read in the endpoint's own shape equals the simulator's `/metrics` counter
 *   deltas exactly (the `servebench.server_metrics` reconciliation) and its ground truth.
 * - Faulted runs: an HTTP 500, an in-stream error event and a malformed event, each in the
 *   endpoint's own dialect (src/sim/dialects.ts), are recorded as HTTPError (with the API's own
 *   error body), StreamError (with the server's words) and JSONDecodeError.
 * - `--tools`: tool calls are parsed on every endpoint that takes tools; the argument bytes the
 *   client counted equal the simulator's ground truth.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';

type Row = Record<string, number | string | null>;
type Doc = Record<string, unknown> & {
  request_timings: Row[];
  failures: Row[];
  completed: number;
  failed: number;
  measurement_protocol: string;
  servebench: Record<string, unknown>;
};

const SIM = { max_num_seqs: 8, prefill_tok_s: 50_000, decode_step_ms: 2, decode_batch_slowdown: 0 };
const dir = mkdtempSync(join(tmpdir(), 'servebench-endpoints-'));
let clean: SimHandle;
let tooled: SimHandle;

before(async () => {
  [clean, tooled] = await Promise.all([
    startSim(SIM),
    startSim({ ...SIM, tool_call_probability: 1, tool_call_arguments_tokens: 12 }),
  ]);
});

after(async () => {
  await Promise.all([clean?.close(), tooled?.close()]);
});

let runs = 0;
async function run(url: string, args: string[], expectCode: number): Promise<Doc> {
  const file = join(dir, `run-${++runs}.json`);
  const result = await runCli(
    [
      'run',
      '--base-url',
      url,
      '--requests',
      '8',
      '--concurrency',
      '2',
      '--ctx-tokens',
      '300',
      '--max-tokens',
      '8',
      '--output',
      file,
      '--quiet',
      ...args,
    ],
    { timeoutMs: 120_000 },
  );
  assert.equal(result.code, expectCode, `exit code\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(readFileSync(file, 'utf8')) as Doc;
}

/** Ground truth of the simulator, by response id. */
function groundTruth(sim: SimHandle): Map<string, Record<string, unknown>> {
  return new Map(sim.groundTruthAll().map((r) => [r.id, r as unknown as Record<string, unknown>]));
}

const ENDPOINTS = ['chat', 'completions', 'responses', 'messages', 'embeddings'] as const;

describe('clean runs: usage equals the /metrics deltas and the ground truth', () => {
  for (const endpoint of ENDPOINTS) {
    test(endpoint, async () => {
      const doc = await run(clean.url, ['--endpoint', endpoint], 0);
      assert.equal(doc.completed, 8, JSON.stringify(doc.failures));
      assert.equal(doc.measurement_protocol, endpoint === 'chat' ? 'capacity-v3' : `servebench-${endpoint}-v1`);
      assert.equal((doc.servebench['config'] as Record<string, unknown>)['endpoint'], endpoint);
      const metrics = doc.servebench['server_metrics'] as {
        status: string;
        reconcile: {
          verdict: string;
          prompt_tokens: { server: number; client: number; difference: number };
          generated_tokens: { difference: number } | null;
        };
      };
      assert.equal(metrics.status, 'complete');
      assert.equal(metrics.reconcile.verdict, 'agree');
      assert.equal(metrics.reconcile.prompt_tokens.difference, 0);
      assert.equal(metrics.reconcile.prompt_tokens.client, 8 * 300, 'prompts sized as this endpoint counts them');
      if (endpoint !== 'embeddings') assert.equal(metrics.reconcile.generated_tokens?.difference, 0);
      const truth = groundTruth(clean);
      for (const row of doc.request_timings) {
        if (endpoint === 'embeddings') {
          assert.equal(row['ttft_ms'], row['e2e_ms'], 'one body: TTFT = E2E');
          continue;
        }
        const record = truth.get(String(row['response_id']));
        assert.ok(record !== undefined, `ground truth for ${String(row['response_id'])}`);
        assert.equal(row['prompt_tokens'], record['promptTokens']);
        assert.equal(row['output_tokens'], record['completionTokens']);
        assert.equal(row['output_token_source'], 'usage');
      }
    });
  }
});

describe('faulted runs: each failure in the endpoint’s own words', () => {
  for (const endpoint of ['chat', 'completions', 'responses', 'messages'] as const) {
    test(endpoint, async (t) => {
      // A simulator of its own: arrivals 1, 3, 5 get the three faults in turn (chars:3.0 sends no
      // probes, so its arrivals are the run's requests).
      const faulted = await startSim({ ...SIM, faults: 'at=1,3,5:mix=http_500,stream_error,malformed_json' });
      t.after(() => faulted.close());
      const doc = await run(faulted.url, ['--endpoint', endpoint, '--tokenizer', 'chars:3.0', '--concurrency', '1'], 1);
      assert.equal(doc.failed, 3, JSON.stringify(doc.failures));
      const byType = new Map(doc.failures.map((f) => [String(f['error_type']), f]));
      const http = byType.get('HTTPError');
      assert.equal(http?.['http_status'], 500);
      const excerpt = String(http?.['error_body_excerpt']);
      if (endpoint === 'messages') assert.match(excerpt, /"type":\s*"error"[\s\S]*"api_error"/, excerpt);
      else assert.match(excerpt, /"error":\s*\{[\s\S]*"message"/, excerpt);
      const stream = byType.get('StreamError');
      assert.ok(stream !== undefined, `a StreamError among ${[...byType.keys()].join(', ')}`);
      assert.ok(String(stream['error_message']).length > 0);
      if (endpoint === 'messages') assert.match(String(stream['error_message']), /^[a-z_]+_error: /);
      assert.ok(byType.has('JSONDecodeError'), `a JSONDecodeError among ${[...byType.keys()].join(', ')}`);
      // The server's own words: the in-stream message is the one the simulator wrote in this dialect.
      assert.ok(
        String(stream['error_body_excerpt']).includes(String(stream['error_message']).replace(/^[a-z_]+_error: /, '')),
      );
    });
  }

  test('embeddings: an HTTP error keeps the body', async (t) => {
    const small = await startSim({ ...SIM, max_model_len: 4096 });
    t.after(() => small.close());
    const doc = await run(
      small.url,
      [
        '--endpoint',
        'embeddings',
        '--max-model-len',
        '200000',
        '--ctx-tokens',
        '100000',
        '--requests',
        '2',
        '--tokenizer',
        'chars:3.0',
      ],
      1,
    );
    assert.equal(doc.failed, 2);
    for (const failure of doc.failures) {
      assert.equal(failure['error_type'], 'HTTPError');
      assert.equal(failure['http_status'], 400);
      assert.match(String(failure['error_body_excerpt']), /"error"/);
    }
  });
});

test('--tools: the client counts the tool calls and their argument bytes as the simulator streamed them', async () => {
  const tools = join(dir, 'tools.json');
  writeFileSync(
    tools,
    JSON.stringify([{ type: 'function', function: { name: 'search', parameters: { type: 'object' } } }]),
  );
  for (const endpoint of ['chat', 'responses', 'messages'] as const) {
    const doc = await run(tooled.url, ['--endpoint', endpoint, '--tools', tools], 0);
    assert.equal(doc.completed, 8, `${endpoint}: a response that only calls a tool succeeds`);
    const truth = groundTruth(tooled);
    let bytes = 0;
    for (const row of doc.request_timings) {
      const record = truth.get(String(row['response_id']));
      assert.ok(record !== undefined);
      assert.equal(row['tool_calls'], 1, endpoint);
      assert.equal(row['tool_argument_bytes'], record['toolArgumentBytes'], endpoint);
      assert.equal(
        row['time_to_first_tool_call_ms'],
        row['ttft_ms'],
        `${endpoint}: the call is the first visible output`,
      );
      bytes += Number(row['tool_argument_bytes']);
    }
    const block = doc.servebench['tool_calls'] as Record<string, number>;
    assert.equal(block['calls'], 8);
    assert.equal(block['requests_with_calls'], 8);
    assert.equal(block['argument_bytes'], bytes);
    assert.equal(block['calls_per_request_avg'], 1);
  }
});
