/**
 * The whole workload of a run, fixed before the first request: per request its planned context,
 * its output cap, and how to render its messages. Synthetic prompts are stored as a body length
 * (re-rendered on demand, so a large plan does not hold every prompt in memory); dataset prompts
 * are stored as rows.
 */
import { createHash, hash, randomBytes } from 'node:crypto';
import { planContexts, type ContextBucket } from './context-plan.js';
import { ENVELOPE_TOO_SMALL } from './prompt.js';
import { PromptSkeleton, type PrefixPolicy } from './skeleton.js';
import { sampleRows, type ChatMessage, type DatasetRow } from './dataset.js';
import { formatContextBuckets } from './buckets.js';

/** Chooses the body length of request `index`'s prompt so that it lands on `targetTokens`. */
export interface PromptSizer {
  /** Recorded as `servebench.prompt_method`, e.g. `chars:3.0` or `server:/tokenize`. */
  readonly method: string;
  /**
   * Returns the body length, or null when the prompt envelope cannot fit the target (the
   * reference's "too small" failure), and the tokens the sizer expects the server to count.
   * `hint` is the previous request's answer for the same target, to start the search near it.
   */
  size(index: number, targetTokens: number, skeleton: PromptSkeleton, hint: number | null): Promise<SizedBody>;
}

/** A sizer's answer for one request. */
export interface SizedBody {
  bodyChars: number | null;
  expectedTokens: number | null;
  /** `skeleton.render(index, bodyChars)` when the sizer rendered it anyway (hashed for the prompt set id without rendering again). */
  text?: string;
  /**
   * With `bodyChars` null: a context that would hold this request's envelope (salt, tail line and
   * chat template, no body), for the message that refuses a plan no prompt of which can be built.
   */
  envelopeTokens?: number;
}

/** Sizing at a fixed characters-per-token ratio, with no counting: `chars:3.0` is the reference. */
export function fixedRatioSizer(ratio: number): PromptSizer {
  return {
    method: `chars:${Number.isInteger(ratio) ? ratio.toFixed(1) : String(ratio)}`,
    size: (index, targetTokens, skeleton) => {
      const total = Math.floor(targetTokens * ratio);
      const fixed = skeleton.envelopeChars(index);
      const tail = skeleton.tail(index).length;
      // floor(target × ratio) must exceed the tail: the least such target holds the envelope.
      if (total <= tail)
        return Promise.resolve({
          bodyChars: null,
          expectedTokens: null,
          envelopeTokens: Math.ceil((tail + 1) / ratio),
        });
      return Promise.resolve({ bodyChars: Math.max(0, total - fixed), expectedTokens: null });
    },
  };
}

export interface WorkloadInput {
  requests: number;
  ctxTokens: number;
  seed: number;
  cap: number | null;
  buckets: ContextBucket[] | null;
  prefix: PrefixPolicy;
  sharedPrefixTokens: number;
  cacheBust: boolean;
  maxTokens: number;
  dataset: DatasetRow[] | null;
  sizer: PromptSizer;
  /** Counts a dataset row's messages for its planned context; null leaves the estimate at chars/3. */
  countMessages?: (messages: ChatMessage[]) => Promise<number>;
  /** Per-request planned contexts given by a trace (replaces the context plan). */
  plannedTokens?: number[];
  /** Per-request output caps given by a trace. */
  maxTokensPlan?: number[];
  /** Size each prompt just before its request instead of up front (runs bounded by time). */
  lazy?: boolean;
  /**
   * Synthetic conversations (workload/conversation.ts): `turns[c]` turns each, request indexes in
   * conversation order. Turn 0's planned context comes from the context plan over the
   * conversations; a later turn is a prompt of `turnTokens` (capped like any other).
   */
  conversations?: { turns: readonly number[]; turnTokens: number };
  /** The dataset rows are already one per request, in request order (a conversation file's turns): no sampling. */
  presampled?: boolean;
}

/** The fixed workload. */
export interface Workload {
  /** Planned requests (an upper bound when the run is bounded by time). */
  readonly requests: number;
  plannedTokens: number[];
  maxTokens: number[];
  distribution: Record<string, number>;
  /** Request `index`'s messages, sizing its prompt first if that was deferred; throws the reference's envelope error when the plan cannot hold a prompt. */
  prepare(index: number): Promise<ChatMessage[]>;
  /** Tokens the sizer expected the server to count for a prepared request (null when it does not count). */
  expectedTokens(index: number): number | null;
  /** `sha256:` over the prepared prompts' digests in index order. */
  promptSetId(): string;
  cachePolicy: string;
  promptMethod: string;
  /** How contexts were planned: `fixed`, `reference-buckets`, `buckets:SPEC`, `trace` or `dataset`. */
  contextSource: string;
  /** Sizes request `index`'s prompt now if that was deferred (a run bounded by time), so {@link tooSmall} covers it. */
  sizeAhead(index: number): Promise<void>;
  /** The sized requests whose prompt envelope does not fit their planned context (they fail with the reference's envelope error). */
  tooSmall(): TooSmall;
}

/** Sized requests that cannot be built: the reference's "context target is too small" failures. */
export interface TooSmall {
  /** Requests sized so far (all of them unless sizing is deferred). */
  sized: number;
  /** Of those, the ones too small for their envelope. */
  requests: number;
  /** The largest planned context among them (0 when none). */
  largestTarget: number;
  /** The largest context their sizer said would hold their envelope (null when none said). */
  envelopeTokens: number | null;
}

/** A fixed-length stand-in for the salt while sizing and hashing, so both are the same in every cache-busted run. */
const SALT_PLACEHOLDER = '0000000000000000';

/** Builds the workload: plan, prompts and their identity. */
export async function buildWorkload(input: WorkloadInput): Promise<Workload> {
  if (input.dataset !== null) return datasetWorkload(input, input.dataset);
  const sizes =
    input.plannedTokens ??
    (input.conversations !== undefined ? conversationSizes(input, input.conversations) : null) ??
    planContexts({
      requests: input.requests,
      ctxTokens: input.ctxTokens,
      seed: input.seed,
      cap: input.cap,
      ...(input.buckets ? { buckets: input.buckets } : {}),
    }).sizes;
  const planned =
    input.plannedTokens && input.cap !== null ? sizes.map((size) => Math.min(size, input.cap as number)) : sizes;
  const options = { prefix: input.prefix, sharedPrefixTokens: input.sharedPrefixTokens };
  const stable = new PromptSkeleton({ ...options, salt: input.cacheBust ? SALT_PLACEHOLDER : null });
  const live = input.cacheBust ? new PromptSkeleton({ ...options, salt: randomBytes(8).toString('hex') }) : stable;
  const bodyChars: (number | null | undefined)[] = new Array<number | null | undefined>(planned.length);
  const expected: (number | null)[] = new Array<number | null>(planned.length).fill(null);
  const digests: (string | undefined)[] = new Array<string | undefined>(planned.length);
  const hints = new Map<number, number>();
  const tooSmall: TooSmall = { sized: 0, requests: 0, largestTarget: 0, envelopeTokens: null };
  const sizeOne = async (index: number): Promise<void> => {
    const target = planned[index] ?? 0;
    const sized = await input.sizer.size(index, target, stable, hints.get(target) ?? null);
    bodyChars[index] = sized.bodyChars;
    expected[index] = sized.expectedTokens;
    tooSmall.sized++;
    if (sized.bodyChars !== null) hints.set(target, sized.bodyChars);
    else {
      tooSmall.requests++;
      tooSmall.largestTarget = Math.max(tooSmall.largestTarget, target);
      if (sized.envelopeTokens !== undefined)
        tooSmall.envelopeTokens = Math.max(tooSmall.envelopeTokens ?? 0, sized.envelopeTokens);
    }
    // One-shot hash: the same hex as createHash().update().digest(), without a Hash object per prompt.
    digests[index] =
      sized.bodyChars === null ? 'none' : hash('sha256', sized.text ?? stable.render(index, sized.bodyChars), 'hex');
  };
  // Sizing is done up front (the plan is fixed before the first request) unless the run is
  // bounded by time, where the number of requests is not known: then each prompt is sized just
  // before its request, outside its timing.
  if (!input.lazy) for (let index = 0; index < planned.length; index++) await sizeOne(index);
  const maxTokens = input.maxTokensPlan ?? planned.map(() => input.maxTokens);
  return {
    requests: planned.length,
    plannedTokens: planned,
    maxTokens,
    distribution: countSizes(planned),
    expectedTokens: (index) => expected[index] ?? null,
    prepare: async (index) => {
      if (bodyChars[index] === undefined) await sizeOne(index);
      const chars = bodyChars[index];
      if (chars === null || chars === undefined) throw new Error(ENVELOPE_TOO_SMALL);
      return [{ role: 'user', content: live.render(index, chars) }];
    },
    promptSetId: () => promptSetIdOf(digests),
    cachePolicy: cachePolicyText(input),
    promptMethod: input.sizer.method,
    contextSource: input.plannedTokens
      ? 'trace'
      : input.ctxTokens > 0
        ? 'fixed'
        : input.buckets
          ? `buckets:${formatContextBuckets(input.buckets)}`
          : 'reference-buckets',
    sizeAhead: async (index) => {
      if (index < planned.length && bodyChars[index] === undefined) await sizeOne(index);
    },
    tooSmall: () => ({ ...tooSmall }),
  };
}

/** Planned tokens per request of synthetic conversations: the context plan for each first turn, `turnTokens` for the later ones. */
function conversationSizes(
  input: WorkloadInput,
  conversations: { turns: readonly number[]; turnTokens: number },
): number[] {
  const first = planContexts({
    requests: conversations.turns.length,
    ctxTokens: input.ctxTokens,
    seed: input.seed,
    cap: input.cap,
    ...(input.buckets ? { buckets: input.buckets } : {}),
  }).sizes;
  const later = input.cap === null ? conversations.turnTokens : Math.min(conversations.turnTokens, input.cap);
  return conversations.turns.flatMap((count, c) => [
    first[c] ?? 0,
    ...new Array<number>(Math.max(0, count - 1)).fill(later),
  ]);
}

/** Hash of the per-request digests in index order, up to the last prepared request. */
function promptSetIdOf(digests: readonly (string | undefined)[]): string {
  let last = digests.length - 1;
  while (last >= 0 && digests[last] === undefined) last--;
  const hash = createHash('sha256').update('servebench.prompt-set/v1\n');
  for (let i = 0; i <= last; i++) hash.update(`${digests[i] ?? 'unsent'}\n`);
  return `sha256:${hash.digest('hex')}`;
}

function countSizes(sizes: readonly number[]): Record<string, number> {
  const distribution: Record<string, number> = {};
  for (const size of sizes) distribution[String(size)] = (distribution[String(size)] ?? 0) + 1;
  return distribution;
}

async function datasetWorkload(input: WorkloadInput, rows: DatasetRow[]): Promise<Workload> {
  const chosen = input.presampled === true ? rows : sampleRows(rows, input.requests, input.seed);
  const salt = input.cacheBust ? randomBytes(8).toString('hex') : null;
  const digests = chosen.map((row) => createHash('sha256').update(JSON.stringify(row.messages)).digest('hex'));
  const planned: number[] = [];
  for (const row of chosen) {
    const estimate = input.countMessages
      ? await input.countMessages(row.messages)
      : Math.ceil(row.messages.reduce((sum, m) => sum + m.content.length, 0) / 3);
    planned.push(input.cap === null ? estimate : Math.min(estimate, input.cap));
  }
  return {
    requests: chosen.length,
    plannedTokens: planned,
    maxTokens: chosen.map((row) => row.maxTokens ?? input.maxTokens),
    distribution: countSizes(planned),
    expectedTokens: (index) => (input.countMessages ? (planned[index] ?? null) : null),
    prepare: (index) => {
      const messages = chosen[index]?.messages ?? [];
      if (salt === null) return Promise.resolve(messages);
      // The salt goes first in the first message, as for synthetic prompts.
      return Promise.resolve(
        messages.map((m, i) => (i === 0 ? { role: m.role, content: `[cache-bust ${salt}]\n${m.content}` } : m)),
      );
    },
    promptSetId: () => promptSetIdOf(digests),
    cachePolicy: cachePolicyText(input),
    promptMethod: `dataset+${input.sizer.method}`,
    contextSource: 'dataset',
    // Dataset prompts are sent as they are: never too small.
    sizeAhead: () => Promise.resolve(),
    tooSmall: () => ({ sized: chosen.length, requests: 0, largestTarget: 0, envelopeTokens: null }),
  };
}

/** `prefix=shared:8000;cache-bust=off`: what compare needs to refuse cold-versus-warm mixes. */
function cachePolicyText(input: WorkloadInput): string {
  const prefix =
    input.dataset !== null
      ? 'dataset'
      : input.prefix === 'none' || input.sharedPrefixTokens === 0
        ? 'none'
        : `${input.prefix}:${input.sharedPrefixTokens}`;
  return `prefix=${prefix};cache-bust=${input.cacheBust ? 'on' : 'off'}`;
}
