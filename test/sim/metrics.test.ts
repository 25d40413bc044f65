/**
 * The simulator's GET /metrics (src/sim/vllm-metrics.ts): vLLM's names and buckets, counters that
 * equal the sums of the responses' `usage`, latency histograms that agree with the ground truth and
 * never exceed the client's readings, KV usage that rises with concurrency. Real sockets, the
 * simulator on port 0; no timed assertions (orderings and exact counts only).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '../../src/sim/clock.js';
import { resolveSimConfig, type SimConfigInput } from '../../src/sim/config.js';
import { Engine } from '../../src/sim/engine.js';
import { startSim, type SimHandle } from '../../src/sim/server.js';
import { VLLM_ITL_BUCKETS, VLLM_REQUEST_LATENCY_BUCKETS, VLLM_TTFT_BUCKETS } from '../../src/sim/vllm-metrics.js';
import { uniquePieces } from '../helpers/engine-harness.js';
import { post, streamRequest, waitFor } from '../helpers/sim-http-client.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Just enough of the text format for these tests (the real parser lives in src/scrape/). */
function parse(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type !== null) types.set(type[1]!, type[2]!);
    const m = /^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (m === null) continue;
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)) labels[k!] = v!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return { samples, types };
}

class Scrape {
  constructor(readonly samples: Sample[]) {}
  value(name: string, labels: Record<string, string> = {}): number {
    const hit = this.samples.find(
      (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
    assert.ok(hit !== undefined, `no sample ${name} ${JSON.stringify(labels)}`);
    return hit.value;
  }
  /** A histogram's cumulative buckets as [le, count] in exposition order. */
  buckets(name: string): Array<[number, number]> {
    return this.samples
      .filter((s) => s.name === `${name}_bucket`)
      .map((s) => [s.labels['le'] === '+Inf' ? Infinity : Number(s.labels['le']), s.value]);
  }
}

function origin(sim: SimHandle): string {
  return sim.url.replace(/\/v1$/, '');
}

async function scrape(sim: SimHandle): Promise<Scrape> {
  const res = await fetch(`${origin(sim)}/metrics`);
  assert.equal(res.status, 200);
  return new Scrape(parse(await res.text()).samples);
}

async function withSim(config: SimConfigInput, fn: (sim: SimHandle) => Promise<void>): Promise<void> {
  const sim = await startSim(config);
  try {
    await fn(sim);
  } finally {
    await sim.close();
  }
}

const chat = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'servebench-sim',
  messages: [{ role: 'user', content }],
  ...extra,
});

describe('simulator /metrics: exposition', () => {
  it("serves vLLM V1's names, types, labels and bucket boundaries with the registry's content type", async () => {
    await withSim({ model: 'my-model', decode_step_ms: 1 }, async (sim) => {
      const res = await fetch(`${origin(sim)}/metrics`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const { samples, types } = parse(await res.text());
      assert.deepEqual(Object.fromEntries(types), {
        'vllm:num_requests_running': 'gauge',
        'vllm:num_requests_waiting': 'gauge',
        'vllm:kv_cache_usage_perc': 'gauge',
        'vllm:prompt_tokens_total': 'counter',
        'vllm:generation_tokens_total': 'counter',
        'vllm:prefix_cache_queries_total': 'counter',
        'vllm:prefix_cache_hits_total': 'counter',
        'vllm:num_preemptions_total': 'counter',
        'vllm:request_success_total': 'counter',
        'vllm:time_to_first_token_seconds': 'histogram',
        'vllm:inter_token_latency_seconds': 'histogram',
        'vllm:e2e_request_latency_seconds': 'histogram',
      });
      assert.ok(samples.every((s) => s.labels['model_name'] === 'my-model' && s.labels['engine'] === '0'));
      assert.ok(
        samples.every((s) => s.value === 0),
        'an idle fresh simulator reports zeros',
      );
      const s = new Scrape(samples);
      assert.deepEqual(
        s.buckets('vllm:time_to_first_token_seconds').map(([le]) => le),
        [...VLLM_TTFT_BUCKETS, Infinity],
      );
      assert.deepEqual(
        s.buckets('vllm:inter_token_latency_seconds').map(([le]) => le),
        [...VLLM_ITL_BUCKETS, Infinity],
      );
      assert.deepEqual(
        s.buckets('vllm:e2e_request_latency_seconds').map(([le]) => le),
        [...VLLM_REQUEST_LATENCY_BUCKETS, Infinity],
      );
      for (const reason of ['stop', 'length', 'abort'])
        assert.equal(s.value('vllm:request_success_total', { finished_reason: reason }), 0);
      const wrong = await post(`${origin(sim)}/metrics`, {});
      assert.equal(wrong.status, 405);
      await wrong.text();
    });
  });
});

describe('simulator /metrics: counters', () => {
  it('token and request counters equal the sums of the usage the responses reported', async () => {
    await withSim(
      {
        decode_step_ms: 1,
        prefill_tok_s: 1_000_000,
        output_tokens: { kind: 'uniform', min_tokens: 1, max_tokens: 12 },
        seed: 11,
      },
      async (sim) => {
        const usages: Array<Record<string, any>> = [];
        const reasons: string[] = [];
        const long = 'a shared system preamble that is long enough to fill a few cache blocks '.repeat(8);
        // Streams of several sizes, the same long prompt twice in a row (prefix-cache hits),
        // a non-streamed chat and a non-streamed raw completion.
        for (const [i, content] of ['hi', 'a little longer prompt here', long, long, 'x '.repeat(300)].entries()) {
          const r = await streamRequest(`${sim.url}/chat/completions`, chat(content, { max_tokens: 4 + i * 2 }));
          assert.equal(r.status, 200);
          usages.push(r.usage ?? assert.fail('stream without usage'));
          reasons.push(r.finishReason ?? assert.fail('no finish_reason'));
        }
        const plain = (await (
          await post(`${sim.url}/chat/completions`, chat('not streamed', { max_tokens: 9 }))
        ).json()) as Record<string, any>;
        usages.push(plain['usage']);
        reasons.push(plain['choices'][0].finish_reason);
        const completion = (await (
          await post(`${sim.url}/completions`, { model: 'servebench-sim', prompt: 'once upon a time', max_tokens: 7 })
        ).json()) as Record<string, any>;
        usages.push(completion['usage']);
        reasons.push(completion['choices'][0].finish_reason);

        const m = await scrape(sim);
        const sum = (f: (u: Record<string, any>) => number) => usages.reduce((a, u) => a + f(u), 0);
        assert.equal(
          m.value('vllm:prompt_tokens_total'),
          sum((u) => u['prompt_tokens']),
        );
        assert.equal(
          m.value('vllm:generation_tokens_total'),
          sum((u) => u['completion_tokens']),
        );
        assert.equal(
          m.value('vllm:prefix_cache_queries_total'),
          sum((u) => u['prompt_tokens']),
        );
        const hits = sum((u) => u['prompt_tokens_details']?.['cached_tokens'] ?? 0);
        assert.ok(hits > 0, 'the repeated prompt hit the cache');
        assert.equal(m.value('vllm:prefix_cache_hits_total'), hits);
        for (const reason of ['stop', 'length'])
          assert.equal(
            m.value('vllm:request_success_total', { finished_reason: reason }),
            reasons.filter((r) => r === reason).length,
            reason,
          );
        assert.ok(reasons.includes('stop') && reasons.includes('length'), `both reasons seen: ${reasons.join(',')}`);
        assert.equal(m.value('vllm:request_success_total', { finished_reason: 'abort' }), 0);
        assert.equal(m.value('vllm:num_preemptions_total'), 0);
        assert.equal(m.value('vllm:time_to_first_token_seconds_count'), usages.length);
        assert.equal(m.value('vllm:e2e_request_latency_seconds_count'), usages.length);
        // tokens_per_chunk 1: one inter-token observation per token after the first.
        assert.equal(
          m.value('vllm:inter_token_latency_seconds_count'),
          sum((u) => u['completion_tokens'] - 1),
        );
        assert.equal(m.value('vllm:num_requests_running'), 0);
        assert.equal(m.value('vllm:num_requests_waiting'), 0);
        assert.equal(m.value('vllm:kv_cache_usage_perc'), 0);
      },
    );
  });

  it('an abandoned stream counts as abort, with the tokens the engine produced before it saw the disconnect', async () => {
    await withSim({ decode_step_ms: 5, output_tokens: { kind: 'max_tokens' } }, async (sim) => {
      let seen = 0;
      const r = await streamRequest(`${sim.url}/chat/completions`, chat('go on and on', { max_tokens: 2000 }), (e) => {
        if (e.json?.['choices']?.[0]?.delta?.content) seen++;
        return seen === 3;
      });
      assert.equal(r.usage, null);
      assert.ok(await waitFor(() => sim.stats().cancelled === 1 && sim.stats().running === 0, 10_000));
      const truth = sim.groundTruthAll()[0] ?? assert.fail('no ground truth');
      const m = await scrape(sim);
      assert.equal(m.value('vllm:request_success_total', { finished_reason: 'abort' }), 1);
      assert.equal(m.value('vllm:prompt_tokens_total'), truth.promptTokens, 'its prefill completed');
      const generated = m.value('vllm:generation_tokens_total');
      assert.ok(
        generated >= truth.completionTokens && truth.completionTokens >= seen,
        `${generated} ≥ ${truth.completionTokens} ≥ ${seen}`,
      );
      assert.ok(generated < 2000);
      assert.equal(m.value('vllm:time_to_first_token_seconds_count'), 1);
      assert.equal(m.value('vllm:e2e_request_latency_seconds_count'), 0, 'no last token, no e2e');
      assert.equal(m.value('vllm:kv_cache_usage_perc'), 0, 'its blocks are free');
    });
  });
});

describe('simulator /metrics: latency histograms', () => {
  it("TTFT and e2e sums are the ground truth's, and every TTFT bucket holds at least the client's count", async () => {
    await withSim({ decode_step_ms: 2, prefill_tok_s: 20_000, max_num_seqs: 2 }, async (sim) => {
      const prompts = Array.from({ length: 6 }, (_, i) => `request ${i}: ` + 'word '.repeat(50 * (i + 1)));
      const results = await Promise.all(
        prompts.map((p, i) => streamRequest(`${sim.url}/chat/completions`, chat(p, { max_tokens: 3 + i }))),
      );
      const m = await scrape(sim);
      assert.equal(m.value('vllm:time_to_first_token_seconds_count'), prompts.length);
      const truth = sim.groundTruthAll();
      const ttftTruth = truth.reduce((a, t) => a + ((t.firstOutputNs ?? NaN) - t.model.arrivalNs) / 1e9, 0);
      const e2eTruth = truth.reduce((a, t) => a + ((t.lastChunkNs ?? NaN) - t.model.arrivalNs) / 1e9, 0);
      assert.ok(Math.abs(m.value('vllm:time_to_first_token_seconds_sum') - ttftTruth) < 1e-6);
      assert.ok(Math.abs(m.value('vllm:e2e_request_latency_seconds_sum') - e2eTruth) < 1e-6);
      // The server's interval lies inside the client's (arrival after the send, stamp before the
      // bytes leave), so no server TTFT is later than its client's: bucket by bucket the server
      // holds at least as many observations, and its sum is no larger.
      const clientS = results.map((r) => (r.firstOutputMs ?? assert.fail('no output')) / 1000);
      for (const [le, count] of m.buckets('vllm:time_to_first_token_seconds'))
        assert.ok(count >= clientS.filter((t) => t <= le).length, `le=${le}: ${count} < client's`);
      assert.ok(m.value('vllm:time_to_first_token_seconds_sum') <= clientS.reduce((a, b) => a + b, 0));
      assert.ok(m.value('vllm:time_to_first_token_seconds_sum') > 0);
    });
  });
});

describe('simulator /metrics: KV usage and batch', () => {
  it('KV usage rises with concurrency; running never exceeds max_num_seqs', async () => {
    const maxNumSeqs = 4;
    await withSim(
      {
        max_num_seqs: maxNumSeqs,
        decode_step_ms: 4,
        prefill_tok_s: 200_000,
        kv_cache_tokens: 100_000,
        output_tokens: { kind: 'max_tokens' },
      },
      async (sim) => {
        // Prompts of ≈2,000 tokens and 120 output tokens: one sequence never holds more than
        // 2,200 tokens, two hold at least 4,000, so a single poll with two running tops phase 1.
        const prompt = (i: number) => `sequence ${i} ` + 'token '.repeat(1000);
        const observe = async (n: number) => {
          let done = false;
          const peak = { kv: 0, running: 0, waiting: 0 };
          const requests = Promise.all(
            Array.from({ length: n }, (_, i) =>
              streamRequest(`${sim.url}/chat/completions`, chat(prompt(n * 100 + i), { max_tokens: 120 })),
            ),
          ).finally(() => (done = true));
          while (!done) {
            const m = await scrape(sim);
            const running = m.value('vllm:num_requests_running');
            assert.ok(running <= maxNumSeqs, `running ${running} > max_num_seqs`);
            peak.kv = Math.max(peak.kv, m.value('vllm:kv_cache_usage_perc'));
            peak.running = Math.max(peak.running, running);
            peak.waiting = Math.max(peak.waiting, m.value('vllm:num_requests_waiting'));
            await new Promise((r) => setTimeout(r, 10));
          }
          for (const r of await requests) assert.equal(r.usage?.['completion_tokens'], 120);
          return peak;
        };
        const one = await observe(1);
        const eight = await observe(8);
        assert.ok(one.kv > 0, 'a running request holds KV blocks');
        assert.equal(one.running, 1);
        assert.ok(eight.running >= 2, `a poll saw ${eight.running} running`);
        assert.ok(eight.kv > one.kv, `peak KV usage ${eight.kv} with 8 in flight vs ${one.kv} with 1`);
        assert.ok(eight.kv <= 1);
        assert.ok(eight.waiting >= 1, '8 requests for 4 slots: some waited');
        const after = await scrape(sim);
        assert.equal(after.value('vllm:kv_cache_usage_perc'), 0);
        assert.equal(after.value('vllm:num_requests_running'), 0);
      },
    );
  });
});

describe('engine KV accounting (virtual clock)', () => {
  /** Run `arrivals` (prompt tokens at ms) on a virtual clock, with the KV blocks held at every step start. */
  function run(
    config: SimConfigInput,
    prompts: Array<{ atMs: number; tokens: number; maxTokens: number; cancelAtMs?: number; tag?: string }>,
  ) {
    const clock = new VirtualClock();
    const held: number[] = [];
    // onStep runs at each step's start, after the batch (and its KV slots) is planned.
    const engine: Engine = new Engine(resolveSimConfig(config), clock, {
      onStep: () => held.push(engine.totals().kvBlocksHeld),
    });
    for (const [i, p] of prompts.entries()) {
      clock.at(p.atMs * 1e6, () => {
        const h = engine.submit(
          {
            promptPieces: uniquePieces(p.tag ?? `r${i}`, p.tokens),
            limits: { maxTokens: p.maxTokens, minTokens: 0, ignoreEos: false, reasoningTokens: 0 },
          },
          { onAdmitted: () => undefined, onChunk: () => undefined },
        );
        if (p.cancelAtMs !== undefined) clock.at(p.cancelAtMs * 1e6, () => h.cancel());
      });
    }
    clock.runAll();
    return { held, totals: engine.totals() };
  }
  const base = { decode_step_ms: 10, prefill_tok_s: 1000, output_tokens: { kind: 'max_tokens' } } as const;

  it('holds whole blocks of prompt + generated tokens while running, and frees them at the end', () => {
    // 100-token prompt, 16-token blocks: 7 blocks through 3 tokens (103 tokens), then freed.
    const { held, totals } = run(base, [{ atMs: 0, tokens: 100, maxTokens: 3 }]);
    assert.deepEqual(held, [7, 7, 7]);
    assert.equal(totals.kvBlocksHeld, 0);
    assert.deepEqual(
      { ...totals },
      {
        promptTokens: 100,
        generationTokens: 3,
        prefixCacheQueries: 100,
        prefixCacheHits: 0,
        finishedStop: 0,
        finishedLength: 1,
        finishedAbort: 0,
        kvBlocksHeld: 0,
      },
    );
    // 12 prompt tokens + 5 generated cross into a second block at the 5th token.
    assert.deepEqual(run(base, [{ atMs: 0, tokens: 12, maxTokens: 6 }]).held, [1, 1, 1, 1, 1, 2]);
  });

  it('allocates a chunked prefill chunk by chunk, sums sequences, and frees an aborted one at once', () => {
    assert.deepEqual(
      run({ ...base, prefill_chunk_tokens: 32 }, [{ atMs: 0, tokens: 100, maxTokens: 1 }]).held,
      [2, 4, 6, 7],
    );
    const two = run(base, [
      { atMs: 0, tokens: 100, maxTokens: 2 },
      { atMs: 0, tokens: 40, maxTokens: 2 },
    ]);
    assert.deepEqual(two.held, [10, 10]);
    const aborted = run(base, [{ atMs: 0, tokens: 100, maxTokens: 50, cancelAtMs: 150 }]);
    assert.equal(aborted.totals.finishedAbort, 1);
    assert.equal(aborted.totals.kvBlocksHeld, 0);
    assert.equal(aborted.totals.promptTokens, 100);
    assert.ok(aborted.totals.generationTokens > 0 && aborted.totals.generationTokens < 50);
  });

  it('counts prefix-cache queries and hits in tokens', () => {
    const { totals } = run(base, [
      { atMs: 0, tokens: 100, maxTokens: 1, tag: 'same' },
      { atMs: 1000, tokens: 100, maxTokens: 1, tag: 'same' },
    ]);
    // The second lookup reuses 6 whole blocks (the last prompt token is always computed).
    assert.equal(totals.prefixCacheQueries, 200);
    assert.equal(totals.prefixCacheHits, 96);
    assert.equal(totals.promptTokens, 200);
  });
});
