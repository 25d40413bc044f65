/**
 * `POST /v1/embeddings`: a pooling request. The engine runs it as a prefill-only request (all its
 * inputs' tokens in one sequence, see EngineRequest.prefillOnly in src/sim/engine.ts): it waits,
 * is admitted, hits the prefix cache and is prefilled like a generation request, then finishes
 * with reason `stop` and 0 output tokens at the end of the step that completes its prefill. The
 * vectors are deterministic: a unit-length vector drawn from the sim seed and the input's text.
 */
import type { ServerResponse } from 'node:http';
import type { SimClock } from './clock.js';
import type { AdmittedEvent, ChunkEvent, EngineListener, SeqHandle } from './engine.js';
import { recordAdmitted, recordCancelled, type GroundTruth } from './ground-truth.js';
import type { EmbeddingRequest } from './requests.js';
import { deriveRng, fnv1a32, normal } from './rng.js';
import type { LatencyObserver } from './vllm-metrics.js';

/**
 * The embedding of `input` under `seed`: `dimensions` standard normal draws scaled to unit length,
 * seeded by the input's text (two hashes of it), so equal inputs always get equal vectors.
 */
function embeddingVector(seed: number, input: string, dimensions: number): number[] {
  const rng = deriveRng(seed, `embedding:${fnv1a32(input).toString(16)}`, fnv1a32(input, 0x01000193));
  const v: number[] = [];
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    const x = normal(rng);
    v.push(x);
    norm += x * x;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 1;
  // float32 precision, as servers return: the base64 encoding then holds exactly these values.
  return v.map((x) => Math.fround(x * scale));
}

/** `vector` as little-endian float32 bytes in base64 (OpenAI's `encoding_format: "base64"`). */
function base64Floats(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes.toString('base64');
}

/** Writes one embeddings response when its prefill completes, and keeps its ground truth current. */
export class EmbeddingWriter implements EngineListener {
  private handle: SeqHandle | undefined;
  private truth: GroundTruth | undefined;
  private created = 0;
  private finished = false;

  constructor(
    private readonly seed: number,
    private readonly clock: SimClock,
    private readonly request: EmbeddingRequest,
    private readonly res: ServerResponse,
    /** Only the e2e histogram: an embedding has no first token or inter-token gap. */
    private readonly latency?: LatencyObserver,
  ) {}

  attach(handle: SeqHandle, truth: GroundTruth): void {
    this.handle = handle;
    this.truth = truth;
    this.created = Math.floor(Date.now() / 1000);
    this.res.on('close', () => this.onClose());
    if (this.res.destroyed || this.res.socket?.destroyed === true) this.onClose();
  }

  private onClose(): void {
    if (this.finished) return;
    this.finished = true;
    this.handle?.cancel();
    recordCancelled(this.truth, this.clock.nowNs());
  }

  onAdmitted(event: AdmittedEvent): void {
    if (this.truth === undefined || this.finished) return;
    recordAdmitted(this.truth, event, this.clock.nowNs());
  }

  onChunk(event: ChunkEvent): void {
    const t = this.truth;
    if (this.finished || t === undefined || event.finish === null) return;
    this.finished = true;
    const { usage, finishReason } = event.finish;
    const r = this.request;
    const data = r.inputs.map((input, index) => {
      const vector = embeddingVector(this.seed, input, r.dimensions);
      return { object: 'embedding', index, embedding: r.encoding === 'base64' ? base64Floats(vector) : vector };
    });
    // `id` and `created` as vLLM adds them (OpenAI's own answer has neither): the id is the ground truth's.
    const body = {
      id: t.id,
      object: 'list',
      created: this.created,
      data,
      model: r.model,
      usage: { prompt_tokens: usage.promptTokens, total_tokens: usage.promptTokens },
    };
    const json = JSON.stringify(body);
    const now = this.clock.nowNs();
    this.res.writeHead(200, { 'content-type': 'application/json' });
    this.res.end(json);
    if (this.handle !== undefined) this.latency?.lastToken((now - this.handle.arrivalNs) / 1e9);
    t.model.firstOutputNs = event.atNs;
    t.model.lastChunkNs = event.atNs;
    t.cachedTokens = usage.cachedTokens;
    t.finishReason = finishReason;
    t.firstOutputNs = now;
    t.lastChunkNs = now;
    t.status = 'done';
  }
}
