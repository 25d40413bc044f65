import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatContextBuckets } from '../../src/workload/buckets.js';
import { parseContextBuckets } from '../../src/config/buckets-file.js';
import { planContexts } from '../../src/workload/context-plan.js';
import { sampleRows } from '../../src/workload/dataset.js';
import { loadDataset } from '../../src/config/dataset-file.js';
import { InputFileError, UsageError } from '../../src/util/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-workload-'));
const here = (p: string): string => resolve(dir, p);

test('inline buckets parse, and the plan follows them with the seed', () => {
  const buckets = parseContextBuckets('4096:0.5,32768:1.0', here);
  assert.deepEqual(buckets, [
    { tokens: 4096, upTo: 0.5 },
    { tokens: 32768, upTo: 1 },
  ]);
  assert.equal(formatContextBuckets(buckets), '4096:0.5,32768:1');
  // Seed 0 draws 0.844, 0.758, 0.421 (docs/protocol.md#context-plan): 32768, 32768, 4096.
  assert.deepEqual(
    planContexts({ requests: 3, ctxTokens: 0, seed: 0, cap: null, buckets }).sizes,
    [32768, 32768, 4096],
  );
});

test('bucket files: text and JSON', () => {
  writeFileSync(here('b.txt'), '1024:0.25,\n2048:1.0\n');
  writeFileSync(here('b.json'), '[{"tokens": 1024, "up_to": 0.25}, {"tokens": 2048, "up_to": 1}]');
  assert.deepEqual(parseContextBuckets('b.txt', here), parseContextBuckets('b.json', here));
});

test('bad buckets give one-line errors', () => {
  for (const [spec, message] of [
    ['4096', /is not TOKENS:CUMULATIVE/],
    ['4096:0.5', /last cumulative bound must be 1\.0/],
    ['4096:0.6,8192:0.5,9000:1', /rise strictly/],
    ['16:1.0', /tokens must be an integer ≥ 32/],
  ] as const) {
    assert.throws(
      () => parseContextBuckets(spec, here),
      (e: unknown) => e instanceof UsageError && message.test(e.message) && !e.message.includes('\n'),
    );
  }
});

test('JSONL datasets: prompt or messages, per-row max_tokens', () => {
  writeFileSync(
    here('d.jsonl'),
    '{"prompt": "hello"}\n\n{"messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}], "max_tokens": 12}\n',
  );
  const rows = loadDataset(here('d.jsonl'));
  assert.equal(rows.length, 2);
  assert.deepEqual(rows[0]!.messages, [{ role: 'user', content: 'hello' }]);
  assert.equal(rows[1]!.maxTokens, 12);
});

test('ShareGPT datasets keep the opening system and first human turn', () => {
  writeFileSync(
    here('s.json'),
    JSON.stringify([
      {
        conversations: [
          { from: 'system', value: 'sys' },
          { from: 'human', value: 'q1' },
          { from: 'gpt', value: 'a1' },
        ],
      },
      { conversations: [{ from: 'gpt', value: 'starts with the model' }] },
      { conversations: [{ from: 'human', value: 'q2' }] },
    ]),
  );
  const rows = loadDataset(here('s.json'));
  assert.deepEqual(
    rows.map((r) => r.messages),
    [
      [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'q1' },
      ],
      [{ role: 'user', content: 'q2' }],
    ],
  );
});

test('bad dataset rows name the file, the line and the field', () => {
  const cases: [string, string, RegExp][] = [
    ['a.jsonl', '{"prompt": "ok"}\n{"prompt": 3}\n', /a\.jsonl:2: field 'prompt' must be a string/],
    ['b.jsonl', '{"messages": [{"role": "user"}]}\n', /b\.jsonl:1: field 'messages\[0\]\.content' must be a string/],
    ['c.jsonl', '{"prompt": "x", "max_tokens": 0}\n', /c\.jsonl:1: field 'max_tokens' must be a positive integer/],
    ['d.jsonl', '{"prompt": "x"\n', /d\.jsonl:1: not valid JSON/],
    [
      'e.json',
      '[{"conversations": [{"from": "alien", "value": "x"}]}]',
      /e\.json\[0\]: field 'conversations\[0\]\.from': unknown speaker 'alien'/,
    ],
    ['f.jsonl', '\n\n', /no usable rows/],
  ];
  for (const [name, text, message] of cases) {
    writeFileSync(here(name), text);
    assert.throws(
      () => loadDataset(here(name), name),
      (e: unknown) => e instanceof InputFileError && message.test(e.message),
      name,
    );
  }
});

test('sampling is seeded and cycles when there are more requests than rows', () => {
  const rows = Array.from({ length: 5 }, (_, i) => ({
    messages: [{ role: 'user', content: `p${i}` }],
    maxTokens: null,
    origin: `line ${i + 1}`,
  }));
  const a = sampleRows(rows, 12, 42).map((r) => r.origin);
  assert.deepEqual(
    a,
    sampleRows(rows, 12, 42).map((r) => r.origin),
  );
  assert.notDeepEqual(
    a,
    sampleRows(rows, 12, 43).map((r) => r.origin),
  );
  assert.deepEqual(new Set(a.slice(0, 5)).size, 5, 'each row once before any repeats');
  assert.deepEqual(a.slice(5, 10), a.slice(0, 5));
});
