import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { RequestResult } from '../../src/record/types.js';
import { buildResult, referenceRunId, type RunMeta, TIMING_METHODOLOGY, utcSeconds } from '../../src/result/build.js';
import type { ServebenchBlock } from '../../src/result/servebench-schema.js';
import { parseResultText } from '../../src/result/io.js';
import { toPyJson } from '../../src/result/pyjson.js';
import { validateResult } from '../../src/result/validate.js';
import { failed, ok } from '../helpers/request-results.js';
import { seedFile } from '../helpers/fixtures.js';

const META: RunMeta = {
  runId: 'benchmark-20260829T235833Z',
  startedAt: '2026-08-29T23:58:33Z',
  finishedAt: '2026-08-29T23:59:04Z',
  wallSeconds: 31.288693599999533,
  baseUrl: 'http://127.0.0.1:8001/v1',
  model: 'm',
  engine: 'vllm',
  gpu: null,
  tier: null,
  manifest: null,
  sourceRecipe: null,
  requests: 3,
  concurrency: 2,
  contextTokens: 4096,
  contextSeed: 0,
  maxContextTokens: 32768,
  maxTokens: 256,
  serveFlags: { shared_prefix_burst: false, no_thinking: false, thinking_mode: 'default', reasoning_effort: 'low' },
  promptSetId: 'anvil-filler-v1',
  cachePolicy: 'cold',
};
// Placeholder blocks: these tests are about the reference keys; the block is passed through as given.
const placeholder = (block: object): ServebenchBlock => block as ServebenchBlock;
const SERVEBENCH = placeholder({ version: '0.1.0', timeout_seconds: 900, shared_prefix_tokens: 8000 });

const RESULTS: RequestResult[] = [
  ok({
    requestIndex: 0,
    reasoningChunks: 2,
    timeToFirstOutputS: 0.1,
    ttftS: 0.3,
    e2eS: 2.7,
    usage: { prompt_tokens: 2968, completion_tokens: 37, prompt_tokens_details: { cached_tokens: 2900 } },
  }),
  ok({
    requestIndex: 2,
    timeToFirstOutputS: 0.2,
    ttftS: 0.2,
    e2eS: 1.9,
    usage: { prompt_tokens: 2968, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 0 } },
  }),
  failed({
    requestIndex: 1,
    error: {
      type: 'HTTPError',
      message: 'HTTP Error 503: Service Unavailable',
      httpStatus: 503,
      bodyExcerpt: '{"error":"busy"}',
      atS: 0.01,
    },
  }),
];

describe('buildResult', () => {
  const built = buildResult(META, RESULTS, SERVEBENCH);

  it('writes the 27 reference keys plus prompt_set_id, cache_policy and servebench', () => {
    const seed = JSON.parse(readFileSync(seedFile(), 'utf8')) as Record<string, unknown>;
    const expected = [...Object.keys(seed), 'prompt_set_id', 'cache_policy', 'servebench'].sort();
    assert.equal(Object.keys(seed).length, 27);
    assert.deepEqual(Object.keys(built).sort(), expected);
    assert.deepEqual(built.timing_methodology, seed['timing_methodology']);
    assert.deepEqual(TIMING_METHODOLOGY, seed['timing_methodology']);
  });

  it('fills counts, label, distribution and wall_clock_ms = wallSeconds × 1000.0', () => {
    assert.equal(built.completed, 2);
    assert.equal(built.failed, 1);
    assert.equal(built.measurement_protocol, 'capacity-v4-reasoning');
    assert.deepEqual(built.context_distribution, { '4096': 3 });
    assert.equal(built.wall_clock_ms, 31.288693599999533 * 1000.0);
    assert.equal(built.metrics.throughput_tok_s, 57 / 31.288693599999533);
    assert.equal(built.failures[0]?.http_status, 503);
    assert.deepEqual(
      built.request_timings.map((r) => r.request_index),
      [0, 2],
    );
  });

  it('serializes floats and ints by the key rule, and the file validates with prefix_cache_hit_avg recomputed', () => {
    const text = `${toPyJson(built)}\n`;
    assert.match(text, /"start_offset_ms": 0\.0,/);
    assert.match(text, /"http_status": 503,/);
    assert.match(text, /"timeout_seconds": 900\.0,/);
    assert.match(text, /"cached_tokens": 2900,/);
    const loaded = parseResultText('built.json', text);
    assert.equal(`${toPyJson(loaded.raw)}\n`, text, 'servebench output round-trips byte for byte');
    const report = validateResult(loaded.result);
    assert.deepEqual(report.disagreements, []);
    assert.deepEqual(report.notes, [], 'every figure was recomputable, including prefix_cache_hit_avg');
    assert.equal(built.metrics.prefix_cache_hit_avg, (2900 / 2968 + 0) / 2);
  });

  it('time helpers produce the reference formats', () => {
    const d = new Date(Date.UTC(2026, 7, 29, 23, 58, 33, 987));
    assert.equal(utcSeconds(d), '2026-08-29T23:58:33Z');
    assert.equal(referenceRunId(d), 'benchmark-20260829T235833Z');
  });
});

/** Arbitrary successes (any doubles as seconds, any usage shape) and failures. */
const arbResult = (index: number): fc.Arbitrary<RequestResult> =>
  fc.oneof(
    fc
      .record({
        // Any double a clock can produce: 0 or ≥ 1 µs (a subnormal duration would make decode = D/gen overflow).
        times: fc.array(fc.oneof(fc.constant(0), fc.double({ min: 1e-6, max: 900, noNaN: true })), {
          minLength: 3,
          maxLength: 3,
        }),
        prompt: fc.option(fc.integer({ min: 0, max: 300_000 })),
        completion: fc.option(fc.integer({ min: 0, max: 8000 })),
        cached: fc.option(fc.integer({ min: 0, max: 300_000 })),
        reasoning: fc.integer({ min: 0, max: 50 }),
        content: fc.integer({ min: 1, max: 500 }),
        planned: fc.constantFrom(4096, 29696, 131072),
        offset: fc.double({ min: 0, max: 1e6, noNaN: true }),
      })
      .map(({ times, prompt, completion, cached, reasoning, content, planned, offset }) => {
        const [tfo = 0, ttft = 0, e2e = 0] = [...times].sort((a, b) => a - b);
        const usage: Record<string, unknown> = {};
        if (prompt !== null) usage['prompt_tokens'] = prompt;
        if (completion !== null) usage['completion_tokens'] = completion;
        if (cached !== null) usage['prompt_tokens_details'] = { cached_tokens: cached };
        return ok({
          requestIndex: index,
          plannedContextTokens: planned,
          startOffsetMs: offset,
          timeToFirstOutputS: reasoning > 0 ? tfo : ttft,
          ttftS: ttft,
          e2eS: e2e,
          reasoningChunks: reasoning,
          contentChunks: content,
          usage: Object.keys(usage).length > 0 ? usage : null,
        });
      }),
    fc
      .record({ message: fc.string({ maxLength: 3000 }), at: fc.double({ min: 0, max: 900, noNaN: true }) })
      .map(({ message, at }) =>
        failed({
          requestIndex: index,
          error: { type: 'TimeoutError', message, httpStatus: null, bodyExcerpt: null, atS: at },
        }),
      ),
  );

describe('property: whatever servebench writes, validate finds consistent', () => {
  it('random runs with arbitrary double timings round-trip and validate with no disagreement', () => {
    const run = fc.integer({ min: 0, max: 40 }).chain((n) =>
      fc.tuple(
        fc.tuple(...Array.from({ length: n }, (_, i) => arbResult(i))),
        // 0 (no rates) or a plausible wall; a subnormal wall would overflow rates to Infinity, which the writer refuses.
        fc.oneof(fc.constant(0), fc.double({ min: 1e-3, max: 5000, noNaN: true })),
      ),
    );
    fc.assert(
      fc.property(run, ([results, wall]) => {
        const built = buildResult({ ...META, requests: results.length, wallSeconds: wall }, results, placeholder({}));
        const text = `${toPyJson(built)}\n`;
        const loaded = parseResultText('random.json', text);
        assert.equal(`${toPyJson(loaded.raw)}\n`, text);
        assert.deepEqual(validateResult(loaded.result).disagreements, []);
      }),
      { numRuns: 300 },
    );
  });
});
