/**
 * The queueing model of an LLM engine: a FIFO waiting queue, `max_num_seqs` batch slots and
 * continuous batching in discrete steps, on an injectable clock (src/sim/clock.ts).
 *
 * One step, starting at absolute time T:
 * 1. Drop cancelled sequences (their slots are free again).
 * 2. Admit waiting requests in arrival order into free slots; look up their prompt in the prefix
 *    cache (cached tokens need no prefill). Event `admitted` at T.
 * 3. Build the batch: every running sequence that finished prefill emits
 *    min(tokens_per_chunk, tokens left) tokens; sequences still in prefill get up to
 *    `prefill_chunk_tokens` (unbounded when 0) prompt tokens in admission order, and one whose
 *    prefill completes in this step emits its first token (exactly 1) at the end of the step.
 * 4. duration = time_scale × (decode_ms(b) + prefill_ms(p)) (formulas in src/sim/config.ts),
 *    rounded to whole nanoseconds; the step ends at the ABSOLUTE time T + duration.
 * 5. At the end: emit each sequence's chunk (event `chunk`, the last one carries the finish),
 *    insert completed prompts into the prefix cache, free finished slots, and start the next
 *    step at exactly the previous end time — never at the (later) time the timer really fired,
 *    so timer lateness never accumulates.
 * An idle engine starts a step at the arrival time of the request that woke it; every request
 * submitted before that step actually begins (same tick on a real clock, same instant on a
 * virtual one) is admitted with it. Requests arriving during a step wait for its end, as in vLLM.
 *
 * Totals for GET /metrics (src/sim/vllm-metrics.ts) are plain counters bumped where the event
 * happens, so the step loop pays a few additions, never an allocation: prompt tokens when a
 * prefill completes (the whole prompt, cached prefix included, as vLLM counts them), generated
 * tokens as the engine emits them, prefix-cache queries and hits in tokens at admission, finished
 * requests by reason. KV usage is the blocks held by running sequences (below, `hold`).
 *
 * Worked example (decode_step_ms 10, slowdown 0.1, prefill 1000 tok/s, max_num_seqs 2, four
 * 100-token prompts at t=0, 3 tokens each): step 1 admits r0,r1: 200 prefill tokens (200 ms) +
 * decode at b=2 (11 ms) → first tokens of r0,r1 at 211 ms; steps 2,3 (11 ms each) → r0,r1 done at
 * 233 ms; step 4 admits r2,r3 → first tokens at 233 + 211 = 444 ms; done at 466 ms.
 */
import type { CancelTimer, SimClock } from './clock.js';
import type { SimConfig } from './config.js';
import { planOutput, type OutputLimits, type OutputPlan } from './output-plan.js';
import { blockHashes, PrefixCache } from './prefix-cache.js';
import { deriveRng } from './rng.js';

/** One request as the engine sees it. */
export interface EngineRequest {
  /** Prompt token pieces (src/sim/tokenizer.ts); the prefix cache compares them. */
  promptPieces: readonly string[];
  limits: OutputLimits;
  /**
   * A pooling request (/v1/embeddings): prefill only. It is admitted, cached and prefilled like any
   * other request but samples no token: its one chunk carries 0 tokens, comes at the end of the
   * step that completes its prefill, adds no decode time to that step (it is not in b), and
   * finishes with reason `stop`.
   */
  prefillOnly?: boolean;
}

/** Token accounting of a finished request, as reported in `usage`. */
export interface EngineUsage {
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  reasoningTokens: number;
}

/** A request got a batch slot. `atNs` is model time (the step start). */
export interface AdmittedEvent {
  atNs: number;
  cachedTokens: number;
}

/** Tokens emitted by one request at the end of one step. `atNs` is model time (the step end). */
export interface ChunkEvent {
  atNs: number;
  /** 0 for the first chunk of the request. */
  chunkIndex: number;
  reasoningTokens: number;
  contentTokens: number;
  /** Set on the request's last chunk. */
  finish: { finishReason: OutputPlan['finishReason']; usage: EngineUsage } | null;
}

/** Receives a request's events, in order: admitted, then chunks. Nothing arrives after cancel(). */
export interface EngineListener {
  onAdmitted(event: AdmittedEvent): void;
  onChunk(event: ChunkEvent): void;
}

/** The caller's handle on a submitted request. */
export interface SeqHandle {
  /** Arrival index (0-based); seeds this request's random streams. */
  readonly index: number;
  /** Model arrival time: the clock reading when submit() was called (ns). */
  readonly arrivalNs: number;
  readonly promptTokens: number;
  readonly plan: OutputPlan;
  /** Abandon the request (client went away): it leaves the queue, or frees its slot at the next step boundary. */
  cancel(): void;
}

/** What one step did, for schedule inspection and determinism tests. */
export interface StepInfo {
  startNs: number;
  endNs: number;
  /** Arrival indexes admitted at the start of this step. */
  admitted: number[];
  /** Sequences emitting tokens at the end (b in the formula). */
  decodeBatch: number;
  /** Prompt tokens prefilled in this step (p in the formula). */
  prefillTokens: number;
}

/** Counters for observability (`GET /sim/stats`). */
export interface EngineStats {
  running: number;
  waiting: number;
  submitted: number;
  completed: number;
  cancelled: number;
  steps: number;
  prefixCacheBlocks: number;
}

/**
 * Cumulative engine totals since start, in vLLM's units (tokens, requests); read at scrape time by
 * src/sim/vllm-metrics.ts. Requests dropped by close() are in none of them.
 */
export interface EngineTotals {
  /** Every prompt token of each request whose prefill completed (its cached prefix included). */
  promptTokens: number;
  /** Output tokens the engine emitted; an abandoned request's tokens count up to its last emitted chunk. */
  generationTokens: number;
  /** Prompt tokens looked up in the prefix cache at admission (0 while the cache is disabled). */
  prefixCacheQueries: number;
  /** Of those, tokens found cached (what `usage.prompt_tokens_details.cached_tokens` reports). */
  prefixCacheHits: number;
  /** Requests that ended with their last token, by finish reason. */
  finishedStop: number;
  finishedLength: number;
  /** Requests the client abandoned (waiting or running) before their last token. */
  finishedAbort: number;
  /** KV blocks (of `prefix_cache.block_tokens` tokens) held by running sequences now. */
  kvBlocksHeld: number;
}

/** Optional hooks. */
export interface EngineOptions {
  /** Called when each step is planned (at its start). */
  onStep?: (step: StepInfo) => void;
}

type SeqState = 'waiting' | 'running' | 'done' | 'cancelled';

interface Seq {
  index: number;
  listener: EngineListener;
  plan: OutputPlan;
  total: number;
  promptTokens: number;
  hashes: string[];
  state: SeqState;
  cachedTokens: number;
  prefillLeft: number;
  emitted: number;
  chunks: number;
  /** KV blocks this sequence holds now (counted in Engine.totals.kvBlocksHeld). */
  heldBlocks: number;
}

interface Emission {
  seq: Seq;
  tokens: number;
  completesPrefill: boolean;
}

interface Step {
  endNs: number;
  emissions: Emission[];
}

/** Continuous-batching engine. Deterministic: same config, seed, arrivals → same events. */
export class Engine {
  private readonly queue: Seq[] = [];
  private queueHead = 0;
  private waiting = 0;
  private running: Seq[] = [];
  private readonly cache: PrefixCache;
  private busy = false;
  private closed = false;
  private timer: CancelTimer | undefined;
  private nextIndex = 0;
  private readonly counters = { completed: 0, cancelled: 0, steps: 0 };
  private readonly sums: EngineTotals = {
    promptTokens: 0,
    generationTokens: 0,
    prefixCacheQueries: 0,
    prefixCacheHits: 0,
    finishedStop: 0,
    finishedLength: 0,
    finishedAbort: 0,
    kvBlocksHeld: 0,
  };

  constructor(
    private readonly config: SimConfig,
    private readonly clock: SimClock,
    private readonly options: EngineOptions = {},
  ) {
    this.cache = new PrefixCache(config.prefix_cache.capacity_blocks);
  }

  /** The arrival index the next submit() will get (it seeds per-request decisions made before submitting). */
  peekIndex(): number {
    return this.nextIndex;
  }

  /** Queue a request; its events go to `listener`. Wakes an idle engine at the current time. */
  submit(request: EngineRequest, listener: EngineListener): SeqHandle {
    if (this.closed) throw new Error('engine is closed');
    // Read the clock first: hashing a long prompt below takes real time that belongs to the model.
    const arrivalNs = this.clock.nowNs();
    const index = this.nextIndex++;
    const plan: OutputPlan =
      request.prefillOnly === true
        ? { reasoningTokens: 0, contentTokens: 0, finishReason: 'stop' }
        : planOutput(this.config.output_tokens, request.limits, deriveRng(this.config.seed, 'output-length', index));
    const pc = this.config.prefix_cache;
    const seq: Seq = {
      index,
      listener,
      plan,
      total: plan.reasoningTokens + plan.contentTokens,
      promptTokens: request.promptPieces.length,
      hashes: pc.enabled ? blockHashes(request.promptPieces, pc.block_tokens) : [],
      state: 'waiting',
      cachedTokens: 0,
      prefillLeft: request.promptPieces.length,
      emitted: 0,
      chunks: 0,
      heldBlocks: 0,
    };
    this.queue.push(seq);
    this.waiting++;
    if (!this.busy) {
      this.busy = true;
      this.timer = this.clock.at(arrivalNs, () => this.beginStep(arrivalNs));
    }
    return { index, arrivalNs, promptTokens: seq.promptTokens, plan, cancel: () => this.cancel(seq) };
  }

  private cancel(seq: Seq): void {
    if (seq.state === 'waiting') this.waiting--;
    else if (seq.state !== 'running') return;
    seq.state = 'cancelled';
    this.counters.cancelled++;
    this.sums.finishedAbort++;
    // A real engine frees an aborted request's blocks at once; the slot itself is reclaimed at the step boundary.
    this.release(seq);
  }

  /**
   * Bring `seq`'s KV blocks up to date: the prompt tokens computed or scheduled so far (the cached
   * prefix included: its blocks are referenced) plus the tokens generated, in whole blocks of
   * `prefix_cache.block_tokens` (vLLM's paged KV cache allocates whole blocks). Blocks shared by
   * two running sequences with a common prefix are counted for each of them (vLLM counts a shared
   * block once), so with shared prefixes the simulator's usage is an upper bound.
   */
  private hold(seq: Seq): void {
    const tokens = seq.promptTokens - seq.prefillLeft + seq.emitted;
    const blocks = Math.ceil(tokens / this.config.prefix_cache.block_tokens);
    this.sums.kvBlocksHeld += blocks - seq.heldBlocks;
    seq.heldBlocks = blocks;
  }

  private release(seq: Seq): void {
    this.sums.kvBlocksHeld -= seq.heldBlocks;
    seq.heldBlocks = 0;
  }

  /** Cumulative totals and the KV blocks held now (a copy). */
  totals(): EngineTotals {
    return { ...this.sums };
  }

  /** Current counters. */
  stats(): EngineStats {
    return {
      running: this.running.filter((s) => s.state === 'running').length,
      waiting: this.waiting,
      submitted: this.nextIndex,
      ...this.counters,
      prefixCacheBlocks: this.cache.size,
    };
  }

  /** Stop stepping and drop every request without further events. */
  close(): void {
    this.closed = true;
    this.timer?.();
    this.timer = undefined;
    for (const s of this.running) s.state = 'cancelled';
    for (let i = this.queueHead; i < this.queue.length; i++) {
      const s = this.queue[i];
      if (s !== undefined) s.state = 'cancelled';
    }
    this.running = [];
    this.queue.length = 0;
    this.queueHead = 0;
    this.waiting = 0;
    this.busy = false;
    this.sums.kvBlocksHeld = 0;
  }

  /** Admit waiting requests into free slots (FIFO), skipping cancelled ones. */
  private admit(startNs: number): number[] {
    const admitted: number[] = [];
    const { enabled, block_tokens: block } = this.config.prefix_cache;
    while (this.running.length < this.config.max_num_seqs && this.queueHead < this.queue.length) {
      const seq = this.queue[this.queueHead++];
      if (seq === undefined || seq.state !== 'waiting') continue;
      this.waiting--;
      seq.state = 'running';
      if (enabled) {
        // As in vLLM, at least the last prompt token is always computed (it yields the logits).
        const usable = Math.floor((seq.promptTokens - 1) / block) * block;
        seq.cachedTokens = Math.min(this.cache.match(seq.hashes) * block, usable);
        // vLLM counts the lookup in tokens: the whole prompt queried, the reused prefix hit.
        this.sums.prefixCacheQueries += seq.promptTokens;
        this.sums.prefixCacheHits += seq.cachedTokens;
      }
      seq.prefillLeft = seq.promptTokens - seq.cachedTokens;
      this.hold(seq);
      this.running.push(seq);
      admitted.push(seq.index);
      seq.listener.onAdmitted({ atNs: startNs, cachedTokens: seq.cachedTokens });
    }
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue.splice(0, this.queueHead); // compact the consumed head now and then
      this.queueHead = 0;
    }
    return admitted;
  }

  /** Decide who emits what in this step and how many prompt tokens are prefilled. */
  private planBatch(): { emissions: Emission[]; prefillTokens: number } {
    const emissions: Emission[] = [];
    let budget = this.config.prefill_chunk_tokens > 0 ? this.config.prefill_chunk_tokens : Number.POSITIVE_INFINITY;
    let prefillTokens = 0;
    for (const seq of this.running) {
      if (seq.prefillLeft === 0) {
        emissions.push({
          seq,
          tokens: Math.min(this.config.tokens_per_chunk, seq.total - seq.emitted),
          completesPrefill: false,
        });
        continue;
      }
      const take = Math.min(seq.prefillLeft, budget);
      budget -= take;
      prefillTokens += take;
      seq.prefillLeft -= take;
      if (take > 0) this.hold(seq); // the chunk's KV slots are allocated when it is scheduled, as in vLLM
      // The forward pass that completes a prompt also samples its first token (one token, no drafts yet).
      // A prefill-only request (total 0) samples nothing.
      if (seq.prefillLeft === 0) emissions.push({ seq, tokens: Math.min(1, seq.total), completesPrefill: true });
    }
    return { emissions, prefillTokens };
  }

  /** Step duration in ns for b emitting sequences and p prefilled tokens (formula in config.ts). */
  stepDurationNs(b: number, p: number): number {
    const c = this.config;
    const decodeMs = b > 0 ? c.decode_step_ms * (1 + c.decode_batch_slowdown * (b - 1)) : 0;
    const prefillMs = (1000 * p) / c.prefill_tok_s;
    return Math.max(1, Math.round(c.time_scale * (decodeMs + prefillMs) * 1e6));
  }

  private beginStep(startNs: number): void {
    this.timer = undefined;
    this.running = this.running.filter((s) => s.state === 'running');
    const admitted = this.admit(startNs);
    if (this.running.length === 0) {
      this.busy = false;
      return;
    }
    const { emissions, prefillTokens } = this.planBatch();
    // b counts the sequences that sample a token: prefill-only requests add prefill time only.
    let decodeBatch = 0;
    for (const e of emissions) if (e.tokens > 0) decodeBatch++;
    const endNs = startNs + this.stepDurationNs(decodeBatch, prefillTokens);
    this.counters.steps++;
    this.options.onStep?.({ startNs, endNs, admitted, decodeBatch, prefillTokens });
    const step: Step = { endNs, emissions };
    this.timer = this.clock.at(endNs, () => this.endStep(step));
  }

  private endStep(step: Step): void {
    this.timer = undefined;
    for (const e of step.emissions) this.emit(e, step.endNs);
    this.running = this.running.filter((s) => s.state === 'running');
    if (this.running.length > 0 || this.waiting > 0) this.beginStep(step.endNs);
    else this.busy = false;
  }

  private emit({ seq, tokens, completesPrefill }: Emission, atNs: number): void {
    if (seq.state !== 'running') return; // cancelled during the step: its tokens are discarded
    if (completesPrefill) {
      this.cache.insert(seq.hashes);
      this.sums.promptTokens += seq.promptTokens;
    }
    const before = seq.emitted;
    seq.emitted += tokens;
    this.sums.generationTokens += tokens;
    const r = seq.plan.reasoningTokens;
    const reasoningTokens = Math.min(seq.emitted, r) - Math.min(before, r);
    const done = seq.emitted >= seq.total;
    if (done) {
      seq.state = 'done';
      this.counters.completed++;
      if (seq.plan.finishReason === 'stop') this.sums.finishedStop++;
      else this.sums.finishedLength++;
      this.release(seq);
    } else {
      this.hold(seq);
    }
    const finish = done
      ? {
          finishReason: seq.plan.finishReason,
          usage: {
            promptTokens: seq.promptTokens,
            cachedTokens: seq.cachedTokens,
            completionTokens: seq.total,
            reasoningTokens: seq.plan.reasoningTokens,
          },
        }
      : null;
    const event: ChunkEvent = {
      atNs,
      chunkIndex: seq.chunks++,
      reasoningTokens,
      contentTokens: tokens - reasoningTokens,
      finish,
    };
    try {
      seq.listener.onChunk(event);
    } catch (err) {
      // A broken listener must not stall every other request's schedule; surface it loudly anyway.
      queueMicrotask(() => {
        throw err;
      });
    }
  }
}
