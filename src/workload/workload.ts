/**
 * The whole workload of a run, fixed before the first request: per request its planned context,
 * its output cap, and how to render its messages. Synthetic prompts are stored as a body length
 * (re-rendered on demand, so a large plan does not hold every prompt in memory); dataset prompts
 * are stored as rows.
 */
import { createHash, randomBytes } from 'node:crypto';
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
  size(index: number, targetTokens: number, skeleton: PromptSkeleton, hint: number | null): Promise<{ bodyChars: number | null; expectedTokens: number | null }>;
}

/** Sizing at a fixed characters-per-token ratio, with no counting: `chars:3.0` is the reference. */
export function fixedRatioSizer(ratio: number): PromptSizer {
  return {
    method: `chars:${Number.isInteger(ratio) ? ratio.toFixed(1) : String(ratio)}`,
    size: (index, targetTokens, skeleton) => {
      const total = Math.floor(targetTokens * ratio);
      const fixed = skeleton.envelopeChars(index);
      if (total <= skeleton.tail(index).length) return Promise.resolve({ bodyChars: null, expectedTokens: null });
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
}

/** The fixed workload. */
export interface Workload {
  plannedTokens: number[];
  maxTokens: number[];
  distribution: Record<string, number>;
  /** Tokens the sizer expected the server to count, per request (null when it does not count). */
  expectedTokens: (number | null)[];
  /** Request `index`'s messages; throws the reference's envelope error when the plan cannot hold a prompt. */
  messagesFor(index: number): ChatMessage[];
  promptSetId: string;
  cachePolicy: string;
  promptMethod: string;
  /** How contexts were planned: `fixed`, `reference-buckets`, `buckets:SPEC` or `dataset`. */
  contextSource: string;
}

/** A fixed-length stand-in for the salt while sizing and hashing, so both are the same in every cache-busted run. */
const SALT_PLACEHOLDER = '0000000000000000';

/** Builds the workload: plan, prompts and their identity. */
export async function buildWorkload(input: WorkloadInput): Promise<Workload> {
  if (input.dataset !== null) return datasetWorkload(input, input.dataset);
  const plan = planContexts({ requests: input.requests, ctxTokens: input.ctxTokens, seed: input.seed, cap: input.cap, ...(input.buckets ? { buckets: input.buckets } : {}) });
  const options = { prefix: input.prefix, sharedPrefixTokens: input.sharedPrefixTokens };
  const stable = new PromptSkeleton({ ...options, salt: input.cacheBust ? SALT_PLACEHOLDER : null });
  const live = input.cacheBust ? new PromptSkeleton({ ...options, salt: randomBytes(8).toString('hex') }) : stable;
  const bodyChars: (number | null)[] = [];
  const expectedTokens: (number | null)[] = [];
  const hints = new Map<number, number>();
  const hash = createHash('sha256').update('servebench.prompt-set/v1\n');
  for (let index = 0; index < input.requests; index++) {
    const target = plan.sizes[index] ?? 0;
    const sized = await input.sizer.size(index, target, stable, hints.get(target) ?? null);
    bodyChars.push(sized.bodyChars);
    expectedTokens.push(sized.expectedTokens);
    if (sized.bodyChars !== null) hints.set(target, sized.bodyChars);
    const digest = sized.bodyChars === null ? 'none' : createHash('sha256').update(stable.render(index, sized.bodyChars)).digest('hex');
    hash.update(`${digest}\n`);
  }
  return {
    plannedTokens: plan.sizes,
    maxTokens: plan.sizes.map(() => input.maxTokens),
    distribution: plan.distribution,
    expectedTokens,
    messagesFor: (index) => {
      const chars = bodyChars[index];
      if (chars === null || chars === undefined) throw new Error(ENVELOPE_TOO_SMALL);
      return [{ role: 'user', content: live.render(index, chars) }];
    },
    promptSetId: `sha256:${hash.digest('hex')}`,
    cachePolicy: cachePolicyText(input),
    promptMethod: input.sizer.method,
    contextSource: input.ctxTokens > 0 ? 'fixed' : input.buckets ? `buckets:${formatContextBuckets(input.buckets)}` : 'reference-buckets',
  };
}

async function datasetWorkload(input: WorkloadInput, rows: DatasetRow[]): Promise<Workload> {
  const chosen = sampleRows(rows, input.requests, input.seed);
  const salt = input.cacheBust ? randomBytes(8).toString('hex') : null;
  const hash = createHash('sha256').update('servebench.prompt-set/v1\n');
  const planned: number[] = [];
  for (const row of chosen) {
    hash.update(`${createHash('sha256').update(JSON.stringify(row.messages)).digest('hex')}\n`);
    const estimate = input.countMessages
      ? await input.countMessages(row.messages)
      : Math.ceil(row.messages.reduce((sum, m) => sum + m.content.length, 0) / 3);
    planned.push(input.cap === null ? estimate : Math.min(estimate, input.cap));
  }
  const distribution: Record<string, number> = {};
  for (const size of planned) distribution[String(size)] = (distribution[String(size)] ?? 0) + 1;
  return {
    plannedTokens: planned,
    maxTokens: chosen.map((row) => row.maxTokens ?? input.maxTokens),
    distribution,
    expectedTokens: input.countMessages ? [...planned] : planned.map(() => null),
    messagesFor: (index) => {
      const messages = chosen[index]?.messages ?? [];
      if (salt === null) return messages;
      // The salt goes first in the first message, as for synthetic prompts.
      return messages.map((m, i) => (i === 0 ? { role: m.role, content: `[cache-bust ${salt}]\n${m.content}` } : m));
    },
    promptSetId: `sha256:${hash.digest('hex')}`,
    cachePolicy: cachePolicyText(input),
    promptMethod: `dataset+${input.sizer.method}`,
    contextSource: 'dataset',
  };
}

/** `prefix=shared:8000;cache-bust=off`: what compare needs to refuse cold-versus-warm mixes. */
function cachePolicyText(input: WorkloadInput): string {
  const prefix = input.dataset !== null ? 'dataset' : input.prefix === 'none' || input.sharedPrefixTokens === 0 ? 'none' : `${input.prefix}:${input.sharedPrefixTokens}`;
  return `prefix=${prefix};cache-bust=${input.cacheBust ? 'on' : 'off'}`;
}
