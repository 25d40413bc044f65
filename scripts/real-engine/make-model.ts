/**
 * A deterministic random-weight llama model with a real tokenizer.
 *
 * Every `tokenizer.*` key is copied from a vocab-only GGUF of llama.cpp (default
 * models/ggml-vocab-phi-3.gguf: phi-3's SentencePiece vocabulary and chat template); the llama
 * hyperparameters are set here; the tensors are seeded random f16 (norms f32, all 1.0). The same
 * options give a byte-identical file (integer PRNG, exact IEEE arithmetic, fixed write order).
 *
 * Byte-token suppression (default on). A random model emits byte-fallback tokens, whose bytes
 * llama-server cannot always turn into valid UTF-8 text; about 1 request in 60–100 then ends in an
 * in-stream error. To suppress them, residual dimension 0 is made a constant: every token
 * embedding has 1.0 there, and row 0 of every matrix that writes into the residual stream
 * (attn_output, ffn_down) is zero, so dimension 0 stays exactly 1.0 through all layers. After the
 * final RMSNorm it is 1/rms(h) > 0, and every banned output row (token types 2 unknown, 3 control,
 * 5 unused, 6 byte — and the tokens llama.cpp treats as end of generation by their text) has weight
 * {@link BANNED_WEIGHT} on it while every other row has 0, so banned logits sit hundreds below the
 * rest and are never sampled. A suppressed model therefore never stops by itself (finish_reason is
 * always "length").
 * `suppress: false` leaves all of that random: the fault-injection model.
 *
 * CLI: node dist/scripts/real-engine/make-model.js [--size tiny|small|medium] [--seed N]
 *        [--no-suppress] [--vocab FILE] [--out FILE]        (prints the model's path)
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { endianness } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  getKv,
  GgmlType,
  GgufType,
  readGguf,
  Rng,
  f32ToF16Bits,
  writeGguf,
  type GgufKv,
  type TensorSpec,
} from './gguf.js';
import { modelsDir, vocabPath } from './paths.js';

/** Bumped whenever the bytes a given set of options produces change (part of cached file names). */
export const GENERATOR_VERSION = 1;

/** Weight of banned output rows on residual dimension 0 (exact in f16). */
export const BANNED_WEIGHT = -1024;

/** GGUF token types that suppression bans: unknown, control, unused, byte. */
export const BANNED_TOKEN_TYPES: ReadonlySet<number> = new Set([2, 3, 5, 6]);

/**
 * Token texts llama.cpp treats as end of generation whatever their type (src/llama-vocab.cpp);
 * suppression bans these too. phi-3's `</s>` (id 2) is user-defined (type 4), yet llama.cpp makes
 * it an end-of-generation token: left in, a suppressed model would stop by itself about once in
 * 30,000 tokens.
 */
export const END_OF_GENERATION_TEXTS: ReadonlySet<string> = new Set([
  '</s>',
  '<|end|>',
  '<|endoftext|>',
  '<|eot_id|>',
  '<|eom_id|>',
  '<|im_end|>',
  '<end_of_turn>',
  '<|end_of_text|>',
  '<EOT>',
  '_<EOT>',
  '[EOT]',
  '[EOS]',
  '<eos>',
  '<|return|>',
  '<|call|>',
]);

export interface ModelShape {
  nEmbd: number;
  nLayer: number;
  nHead: number;
  nHeadKv: number;
  nFf: number;
  contextLength: number;
}

/** Model shapes: tiny and small for the tests, medium for speed checks. */
export const SIZES = {
  tiny: { nEmbd: 64, nLayer: 2, nHead: 4, nHeadKv: 4, nFf: 176, contextLength: 8192 },
  small: { nEmbd: 512, nLayer: 8, nHead: 8, nHeadKv: 8, nFf: 1376, contextLength: 8192 },
  medium: { nEmbd: 1024, nLayer: 16, nHead: 16, nHeadKv: 16, nFf: 2816, contextLength: 8192 },
} as const satisfies Record<string, ModelShape>;
export type SizeName = keyof typeof SIZES;

export interface MakeModelOptions {
  vocab: string;
  out: string;
  shape: ModelShape;
  seed: number;
  suppress: boolean;
  name?: string;
}

export interface MadeModel {
  path: string;
  params: number;
  vocabSize: number;
  bannedTokens: number;
}

/** Writes the model to `out` (through a temporary file and a rename, so `out` is never partial). */
export function makeModel(opts: MakeModelOptions): MadeModel {
  if (endianness() !== 'LE')
    throw new Error('make-model writes little-endian tensors from typed arrays: a little-endian host is required');
  const { nEmbd, nLayer, nHead, nHeadKv, nFf, contextLength } = opts.shape;
  if (nEmbd % nHead !== 0) throw new Error(`n_embd ${nEmbd} is not a multiple of n_head ${nHead}`);
  if (nHead % nHeadKv !== 0) throw new Error(`n_head ${nHead} is not a multiple of n_head_kv ${nHeadKv}`);
  const headDim = nEmbd / nHead;
  const nEmbdKv = headDim * nHeadKv;

  const vocab = readGguf(opts.vocab);
  const tokens = getKv(vocab, 'tokenizer.ggml.tokens');
  if (tokens?.type !== GgufType.ARRAY || tokens.elementType !== GgufType.STRING)
    throw new Error(`${opts.vocab}: no tokenizer.ggml.tokens string array`);
  const nVocab = tokens.value.length;
  const typesKv = getKv(vocab, 'tokenizer.ggml.token_type');
  const tokenTypes: number[] =
    typesKv?.type === GgufType.ARRAY && typesKv.elementType === GgufType.INT32 ? (typesKv.value as number[]) : [];
  if (opts.suppress && tokenTypes.length !== nVocab)
    throw new Error(`${opts.vocab}: suppression needs tokenizer.ggml.token_type for all ${nVocab} tokens`);
  const banned = new Uint8Array(nVocab);
  let bannedTokens = 0;
  if (opts.suppress) {
    const texts = tokens.value as string[];
    tokenTypes.forEach((t, i) => {
      if (BANNED_TOKEN_TYPES.has(t) || END_OF_GENERATION_TEXTS.has(texts[i]!)) {
        banned[i] = 1;
        bannedTokens++;
      }
    });
  }

  const u32 = (key: string, value: number): GgufKv => ({ key, value: { type: GgufType.UINT32, value } });
  const f32 = (key: string, value: number): GgufKv => ({ key, value: { type: GgufType.FLOAT32, value } });
  const str = (key: string, value: string): GgufKv => ({ key, value: { type: GgufType.STRING, value } });
  const kvs: GgufKv[] = [
    str('general.architecture', 'llama'),
    str('general.name', opts.name ?? 'servebench-random'),
    u32('general.file_type', 1), // LLAMA_FTYPE_MOSTLY_F16
    u32('general.alignment', 32),
    u32('llama.vocab_size', nVocab),
    u32('llama.context_length', contextLength),
    u32('llama.embedding_length', nEmbd),
    u32('llama.block_count', nLayer),
    u32('llama.feed_forward_length', nFf),
    u32('llama.attention.head_count', nHead),
    u32('llama.attention.head_count_kv', nHeadKv),
    u32('llama.rope.dimension_count', headDim),
    f32('llama.rope.freq_base', 10000),
    f32('llama.attention.layer_norm_rms_epsilon', 1e-5),
    ...vocab.kvs.filter((kv) => kv.key.startsWith('tokenizer.')),
  ];

  let tensorIndex = 0;
  /** A random f16 matrix [ne0, ne1] (ne0 contiguous), uniform in ±1/sqrt(ne0), with optional per-row edits. */
  const matrix = (
    name: string,
    ne0: number,
    ne1: number,
    opt: { scale?: number; row?: (r: number, row: Uint16Array) => void } = {},
  ): TensorSpec => {
    const rng = new Rng(mixSeed(opts.seed, tensorIndex++));
    const scale = opt.scale ?? 1 / Math.sqrt(ne0);
    return {
      name,
      dims: [ne0, ne1],
      type: GgmlType.F16,
      fill: (sink) => {
        const rowsPerChunk = Math.max(1, Math.floor((1 << 20) / ne0));
        for (let r0 = 0; r0 < ne1; r0 += rowsPerChunk) {
          const rows = Math.min(rowsPerChunk, ne1 - r0);
          const chunk = new Uint16Array(rows * ne0);
          for (let i = 0; i < chunk.length; i++) chunk[i] = f32ToF16Bits(rng.symmetric() * scale);
          if (opt.row !== undefined)
            for (let r = 0; r < rows; r++) opt.row(r0 + r, chunk.subarray(r * ne0, (r + 1) * ne0));
          sink(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        }
      },
    };
  };
  const ones = (name: string, n: number): TensorSpec => {
    tensorIndex++;
    return {
      name,
      dims: [n],
      type: GgmlType.F32,
      fill: (sink) => {
        const data = new Float32Array(n).fill(1);
        sink(new Uint8Array(data.buffer));
      },
    };
  };
  const ONE = f32ToF16Bits(1);
  const BAN = f32ToF16Bits(BANNED_WEIGHT);
  const zeroRow0 = opts.suppress ? { row: (r: number, row: Uint16Array) => (r === 0 ? row.fill(0) : undefined) } : {};

  const tensors: TensorSpec[] = [
    matrix('token_embd.weight', nEmbd, nVocab, {
      scale: 1,
      ...(opts.suppress ? { row: (_r: number, row: Uint16Array) => void (row[0] = ONE) } : {}),
    }),
    ones('output_norm.weight', nEmbd),
    matrix(
      'output.weight',
      nEmbd,
      nVocab,
      opts.suppress ? { row: (r, row) => void (row[0] = banned[r] === 1 ? BAN : 0) } : {},
    ),
  ];
  for (let l = 0; l < nLayer; l++) {
    const p = `blk.${l}.`;
    tensors.push(
      ones(`${p}attn_norm.weight`, nEmbd),
      matrix(`${p}attn_q.weight`, nEmbd, nEmbd),
      matrix(`${p}attn_k.weight`, nEmbd, nEmbdKv),
      matrix(`${p}attn_v.weight`, nEmbd, nEmbdKv),
      matrix(`${p}attn_output.weight`, nEmbd, nEmbd, zeroRow0),
      ones(`${p}ffn_norm.weight`, nEmbd),
      matrix(`${p}ffn_gate.weight`, nEmbd, nFf),
      matrix(`${p}ffn_up.weight`, nEmbd, nFf),
      matrix(`${p}ffn_down.weight`, nFf, nEmbd, zeroRow0),
    );
  }
  const params = tensors.reduce((sum, t) => sum + t.dims.reduce((a, b) => a * b, 1), 0);

  mkdirSync(dirname(opts.out), { recursive: true });
  const tmp = `${opts.out}.tmp-${process.pid}`;
  try {
    writeGguf(tmp, kvs, tensors, 32);
    renameSync(tmp, opts.out);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  return { path: opts.out, params, vocabSize: nVocab, bannedTokens };
}

/** splitmix-style mix of the user seed and the tensor's position: independent streams per tensor. */
function mixSeed(seed: number, index: number): number {
  let z = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca77)) >>> 0;
  z = Math.imul(z ^ (z >>> 15), 0x2c1b3c6d) >>> 0;
  z = Math.imul(z ^ (z >>> 12), 0x297a2d39) >>> 0;
  return (z ^ (z >>> 15)) >>> 0;
}

export interface CachedModelOptions {
  size: SizeName;
  seed?: number;
  suppress?: boolean;
  vocab?: string;
}

/** The cache file name for a set of options (the generator version is part of it). */
export function cachedModelName(o: CachedModelOptions): string {
  const vocabName = basename(o.vocab ?? vocabPath())
    .replace(/^ggml-vocab-/, '')
    .replace(/\.gguf$/, '');
  return `${o.size}-${vocabName}-seed${o.seed ?? 0}-${o.suppress === false ? 'bytes' : 'suppressed'}-g${GENERATOR_VERSION}.gguf`;
}

/** The model for these options in the cache directory, generated on first use. */
export function ensureModel(o: CachedModelOptions): string {
  const out = join(modelsDir(), cachedModelName(o));
  if (existsSync(out)) return out;
  makeModel({
    vocab: o.vocab ?? vocabPath(),
    out,
    shape: SIZES[o.size],
    seed: o.seed ?? 0,
    suppress: o.suppress !== false,
    name: `servebench-random-${o.size}`,
  });
  return out;
}

function main(argv: string[]): void {
  let size: SizeName = 'tiny';
  let seed = 0;
  let suppress = true;
  let vocab: string | undefined;
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--size') {
      const v = value();
      if (!(v in SIZES)) throw new Error(`--size must be one of ${Object.keys(SIZES).join(', ')}`);
      size = v as SizeName;
    } else if (arg === '--seed') {
      seed = Number(value());
      if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
        throw new Error('--seed must be an integer 0..4294967295');
    } else if (arg === '--no-suppress') suppress = false;
    else if (arg === '--vocab') vocab = value();
    else if (arg === '--out') out = value();
    else throw new Error(`unknown argument ${arg}`);
  }
  const t0 = process.hrtime.bigint();
  let path: string;
  if (out === undefined) {
    path = ensureModel({ size, seed, suppress, ...(vocab === undefined ? {} : { vocab }) });
  } else {
    path = makeModel({
      vocab: vocab ?? vocabPath(),
      out,
      shape: SIZES[size],
      seed,
      suppress,
      name: `servebench-random-${size}`,
    }).path;
  }
  process.stderr.write(
    `[real-engine] model ${size} ready in ${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(1)} s\n`,
  );
  process.stdout.write(`${path}\n`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`make-model: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
}
