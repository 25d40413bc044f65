/**
 * The model generator (scripts/real-engine/make-model.ts) on llama.cpp's real phi-3 vocab file:
 * determinism (the same seed gives a byte-identical file), the llama layout llama.cpp expects,
 * the tokenizer copied verbatim, and the byte-token suppression written as designed.
 * That llama-server loads and serves these files is shown by the other real-engine tests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  f16BitsToNumber,
  getKv,
  GgmlType,
  GgufType,
  parseGguf,
  tensorBytes,
  type GgufFile,
} from '../../scripts/real-engine/gguf.js';
import {
  BANNED_TOKEN_TYPES,
  BANNED_WEIGHT,
  END_OF_GENERATION_TEXTS,
  makeModel,
  SIZES,
} from '../../scripts/real-engine/make-model.js';
import { vocabPath } from '../../scripts/real-engine/paths.js';
import { printTable } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-gguf-real-'));
const vocab = vocabPath('phi-3');

function make(name: string, seed: number, suppress = true): { path: string; sha256: string; ms: number } {
  const t0 = performance.now();
  const path = join(dir, name);
  makeModel({ vocab, out: path, shape: SIZES.tiny, seed, suppress });
  const ms = performance.now() - t0;
  return { path, sha256: createHash('sha256').update(readFileSync(path)).digest('hex'), ms };
}

test('same seed → byte-identical model; another seed or no suppression → different bytes', () => {
  const a = make('a.gguf', 7);
  const b = make('b.gguf', 7);
  const c = make('c.gguf', 8);
  const d = make('d.gguf', 7, false);
  printTable(
    'tiny model generation',
    ['file', 'seed', 'suppress', 'bytes', 'ms', 'sha256'],
    [
      ['a', 7, 'yes', statSync(a.path).size, a.ms, a.sha256.slice(0, 16)],
      ['b', 7, 'yes', statSync(b.path).size, b.ms, b.sha256.slice(0, 16)],
      ['c', 8, 'yes', statSync(c.path).size, c.ms, c.sha256.slice(0, 16)],
      ['d', 7, 'no', statSync(d.path).size, d.ms, d.sha256.slice(0, 16)],
    ],
  );
  assert.ok(readFileSync(a.path).equals(readFileSync(b.path)), 'seed 7 twice: identical bytes');
  assert.notEqual(c.sha256, a.sha256);
  assert.notEqual(d.sha256, a.sha256);
  assert.equal(statSync(c.path).size, statSync(a.path).size, 'same shape, same size');
});

test("the file has the llama layout, the vocab's tokenizer verbatim, and suppression as designed", () => {
  const { path } = make('layout.gguf', 3);
  const bytes = readFileSync(path);
  const file = parseGguf(bytes);
  const source = parseGguf(readFileSync(vocab));
  const shape = SIZES.tiny;

  assert.deepEqual(
    file.kvs.filter((kv) => kv.key.startsWith('tokenizer.')),
    source.kvs.filter((kv) => kv.key.startsWith('tokenizer.')),
    'every tokenizer.* key copied unchanged, in order',
  );
  const u32 = (key: string): number => {
    const v = getKv(file, key);
    assert.equal(v?.type, GgufType.UINT32, key);
    return v.value;
  };
  assert.deepEqual(getKv(file, 'general.architecture'), { type: GgufType.STRING, value: 'llama' });
  const tokens = getKv(source, 'tokenizer.ggml.tokens')!.value as string[];
  assert.equal(u32('llama.vocab_size'), tokens.length);
  assert.equal(u32('llama.embedding_length'), shape.nEmbd);
  assert.equal(u32('llama.block_count'), shape.nLayer);
  assert.equal(u32('llama.feed_forward_length'), shape.nFf);
  assert.equal(u32('llama.attention.head_count'), shape.nHead);
  assert.equal(u32('llama.attention.head_count_kv'), shape.nHeadKv);
  assert.equal(u32('llama.rope.dimension_count'), shape.nEmbd / shape.nHead);
  assert.equal(u32('llama.context_length'), shape.contextLength);

  const expected: [string, number[], number][] = [
    ['token_embd.weight', [shape.nEmbd, tokens.length], GgmlType.F16],
    ['output_norm.weight', [shape.nEmbd], GgmlType.F32],
    ['output.weight', [shape.nEmbd, tokens.length], GgmlType.F16],
  ];
  for (let l = 0; l < shape.nLayer; l++) {
    expected.push(
      [`blk.${l}.attn_norm.weight`, [shape.nEmbd], GgmlType.F32],
      [`blk.${l}.attn_q.weight`, [shape.nEmbd, shape.nEmbd], GgmlType.F16],
      [`blk.${l}.attn_k.weight`, [shape.nEmbd, shape.nEmbd], GgmlType.F16],
      [`blk.${l}.attn_v.weight`, [shape.nEmbd, shape.nEmbd], GgmlType.F16],
      [`blk.${l}.attn_output.weight`, [shape.nEmbd, shape.nEmbd], GgmlType.F16],
      [`blk.${l}.ffn_norm.weight`, [shape.nEmbd], GgmlType.F32],
      [`blk.${l}.ffn_gate.weight`, [shape.nEmbd, shape.nFf], GgmlType.F16],
      [`blk.${l}.ffn_up.weight`, [shape.nEmbd, shape.nFf], GgmlType.F16],
      [`blk.${l}.ffn_down.weight`, [shape.nFf, shape.nEmbd], GgmlType.F16],
    );
  }
  assert.deepEqual(
    file.tensors.map((t) => [t.name, t.dims, t.type]),
    expected,
  );
  let end = 0;
  for (const t of file.tensors) {
    assert.equal(Number(t.offset) % 32, 0, `${t.name} is 32-byte aligned`);
    assert.ok(Number(t.offset) >= end, `${t.name} does not overlap its predecessor`);
    end = Number(t.offset) + tensorBytes({ dims: t.dims, type: t.type as 0 | 1 });
  }
  assert.equal(bytes.length, file.dataOffset + Math.ceil(end / 32) * 32);

  // Suppression: residual dim 0 is 1.0 in every embedding, nothing writes into it, and exactly the
  // banned output rows weigh it with BANNED_WEIGHT.
  const types = getKv(source, 'tokenizer.ggml.token_type')!.value as number[];
  const banned = tokens.map((text, i) => BANNED_TOKEN_TYPES.has(types[i]!) || END_OF_GENERATION_TEXTS.has(text));
  const column0 = (name: string): number[] => {
    const t = tensor(file, name);
    const base = file.dataOffset + Number(t.offset);
    return Array.from({ length: t.dims[1]! }, (_, r) => f16BitsToNumber(bytes.readUInt16LE(base + 2 * r * t.dims[0]!)));
  };
  assert.ok(column0('token_embd.weight').every((v) => v === 1));
  assert.deepEqual(
    column0('output.weight'),
    banned.map((b) => (b ? BANNED_WEIGHT : 0)),
  );
  const byteTokens = types.filter((t) => t === 6).length;
  console.log(
    `  banned output rows: ${banned.filter(Boolean).length} of ${tokens.length} (${byteTokens} byte tokens; '</s>' banned: ${banned[tokens.indexOf('</s>')]})`,
  );
  assert.equal(byteTokens, 256);
  for (let l = 0; l < shape.nLayer; l++) {
    for (const name of [`blk.${l}.attn_output.weight`, `blk.${l}.ffn_down.weight`]) {
      const t = tensor(file, name);
      const base = file.dataOffset + Number(t.offset);
      for (let i = 0; i < t.dims[0]!; i++) assert.equal(bytes.readUInt16LE(base + 2 * i), 0, `${name} row 0 is zero`);
      assert.ok(
        bytes.readUInt16LE(base + 2 * t.dims[0]!) !== 0 || bytes.readUInt16LE(base + 2 * t.dims[0]! + 2) !== 0,
        `${name} row 1 is random`,
      );
    }
  }
});

function tensor(file: GgufFile, name: string): GgufFile['tensors'][number] {
  const t = file.tensors.find((x) => x.name === name);
  assert.ok(t, name);
  return t;
}
