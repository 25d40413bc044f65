/**
 * Fault injection with a real engine: the tiny model built WITHOUT byte-token suppression
 * (make-model --no-suppress). Random byte-fallback tokens make output that llama-server cannot
 * parse as text; it then ends the stream with an in-stream error event after normal content:
 *   data: {"error":{"code":500,"message":"The model produced output that does not match the expected peg-native format","type":"server_error"}}
 * with HTTP 200, no usage and no [DONE]. servebench must record each such request as a
 * `StreamError` failure carrying the server's message, never as a success.
 *
 * How often: about 15 of 100 requests at 128 output tokens (measured: 15/100; 5/100 at 64 tokens,
 * 0/100 at 8), since the chance grows with every token. 100 requests of 128 tokens take about 4 s.
 * Requests go through the tap proxy (tap-proxy.ts) so the test can see what the server actually
 * sent: which streams carried an error event, how much content came before it, and the server's
 * completion_tokens for the requests that succeeded.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLlamaServer, type LlamaServer } from '../../scripts/real-engine/engine.js';
import { ensureModel } from '../../scripts/real-engine/make-model.js';
import { bench, printTable } from './helpers.js';
import { startTapProxy, type TapProxy } from './tap-proxy.js';

let server: LlamaServer;
let proxy: TapProxy;

before(async () => {
  const model = ensureModel({ size: 'tiny', suppress: false });
  server = await startLlamaServer({
    model,
    alias: 'tiny-random-bytes',
    ctx: 8192,
    parallel: 4,
    threads: 2,
    seed: 1234,
  });
  proxy = await startTapProxy(server.origin);
  console.log(`llama-server (tiny, byte tokens allowed) ready in ${server.readyMs.toFixed(0)} ms, pid ${server.pid}`);
});

after(async () => {
  await proxy?.close();
  await server?.stop();
});

test("mid-stream error events from the server are StreamError failures with the server's message, not successes", async () => {
  // --tokenizer chars:3.0: no calibration probes, so the proxy sees exactly the run's 100 requests
  // (a 1-token probe could itself end in this model's error and stop the run before it starts).
  const { result, seconds } = await bench(
    proxy.baseUrl,
    [
      '--requests',
      '100',
      '--concurrency',
      '4',
      '--ctx-tokens',
      '256',
      '--shared-prefix-tokens',
      '0',
      '--max-tokens',
      '128',
      '--tokenizer',
      'chars:3.0',
    ],
    null,
  );
  const streams = proxy.records.filter((r) => r.status === 200 && r.plainBody === null);
  const errored = streams.filter((r) => r.streamError !== null);
  const clean = streams.filter((r) => r.streamError === null);

  printTable(
    `fault injection: 100 requests, 128 tokens, byte tokens allowed (${seconds.toFixed(1)} s)`,
    ['', 'count'],
    [
      ['streams the server ended with an error event', errored.length],
      ['  of which with content before the error', errored.filter((r) => r.contentDeltas > 0).length],
      ['servebench StreamError failures', result.failures.filter((f) => f.error_type === 'StreamError').length],
      ['servebench failures of any type', result.failed],
      ['streams that ended with [DONE]', clean.filter((r) => r.done).length],
      ['servebench completed', result.completed],
    ],
  );

  assert.equal(streams.length, 100, 'every request reached the server as a stream');
  assert.ok(errored.length >= 1, 'at least one stream ended in an error event (expected about 15 in 100)');
  for (const r of errored) {
    assert.equal(r.done, false, 'an errored stream has no [DONE]');
    assert.ok(r.contentDeltas > 0, 'the error came mid-stream, after content');
  }
  assert.equal(result.failed, errored.length, 'exactly the errored streams are failures');
  assert.equal(result.completed, clean.length, 'exactly the clean streams are successes');

  const serverMessages = errored.map((r) => r.streamError!.message!).sort();
  const recorded = result.failures.map((f) => f.error_message).sort();
  assert.deepEqual(recorded, serverMessages, "each failure carries the server's own message");
  for (const f of result.failures) {
    assert.equal(f.error_type, 'StreamError');
    assert.equal(f.http_status, 200, 'the error came inside a 200 stream');
    const excerpt = JSON.parse(f.error_body_excerpt!) as { error: { code: number; type: string; message: string } };
    assert.deepEqual(
      [excerpt.error.code, excerpt.error.type, excerpt.error.message],
      [500, 'server_error', f.error_message],
    );
    assert.ok((f['error_at_ms'] as number) > 0);
  }

  // The successes: token counts come from usage, which here differs from the number of content
  // deltas (llama-server holds back incomplete UTF-8 from byte tokens, merging tokens into one delta).
  const byId = new Map(clean.map((r) => [r.id, r]));
  let merged = 0;
  for (const row of result.request_timings) {
    const record = byId.get(row.response_id);
    assert.ok(record !== undefined, `row ${row.request_index} matches a stream the server sent`);
    assert.equal(
      row.output_tokens,
      record.usage?.['completion_tokens'],
      "output_tokens is the server's completion_tokens",
    );
    assert.equal(row.prompt_tokens, record.usage?.['prompt_tokens']);
    assert.equal(row.content_chunks, record.contentDeltas);
    if (row.content_chunks !== row.output_tokens) merged++;
  }
  console.log(`  successes whose content deltas ≠ completion tokens: ${merged} of ${result.completed}`);
  assert.ok(merged >= 1, 'with byte tokens, some outputs have fewer content deltas than tokens');
});
