/**
 * Fault injection for the simulator: which faults exist, the `--faults SPEC` language, and the
 * choice of a fault for one request (by the `x-sim-fault` request header, or by a seeded schedule
 * over the arrival index). What each fault does to the bytes on the wire lives in
 * src/sim/faults-stream.ts (stream faults) and src/sim/server.ts (faults before the response).
 *
 * SPEC (documented in docs/reliability.md):
 *
 *   SPEC  := FIELD (':' FIELD)*           a ':' starts a new field only before `NAME=`
 *   FIELD := rate=P                        each request is faulted with probability P (0..1)
 *          | mix=FAULT(,FAULT)*            the faults to choose from (uniformly, seeded)
 *          | every=N                       every Nth request (indexes N−1, 2N−1, …), the mix in turn
 *          | at=I(,I)*                     exactly these arrival indexes, the mix in turn
 *          | seed=N                        seed of the random choice (default: the sim's seed)
 *   FAULT := NAME(:NUMBER)*                e.g. `stall_first:2`, `http_429:1.5`
 *
 * A SPEC without any `NAME=` field is a mix applied to every request: `reset_mid` means
 * `mix=reset_mid:rate=1`. `rate` and `every`/`at` exclude each other; with only `mix` the rate is 1.
 * Only streaming generation requests (`/chat/completions`, `/completions`, `/responses`, `/messages`
 * with `stream: true`) count as arrivals and can be faulted, each in its own dialect (error bodies
 * and in-stream events: src/sim/dialects.ts); `/models`, `/tokenize`, `/embeddings`, health and
 * non-streaming requests never are.
 */
import { deriveRng } from './rng.js';

/** One fault: what it does, its numeric arguments (names, defaults) and whether it acts before the response head. */
export interface FaultDefinition {
  readonly name: string;
  /** Short description for help text and docs. */
  readonly summary: string;
  /** Positional numeric arguments after the name: `name:ARG0:ARG1`. */
  readonly args: readonly {
    readonly name: string;
    readonly default: number;
    readonly min: number;
    readonly max: number;
  }[];
  /** True when the fault decides the response before its head is written (no stream). */
  readonly beforeResponse: boolean;
}

const AFTER = (def: number) => ({ name: 'after_chunks', default: def, min: 0, max: 1_000_000 });
const SECONDS = (name: string, def: number) => ({ name, default: def, min: 0, max: 3600 });

/** Every fault the simulator can inject, by stable name. */
export const FAULTS = {
  http_429: {
    name: 'http_429',
    summary: 'HTTP 429 with a JSON error body and `Retry-After: S`',
    args: [SECONDS('retry_after_s', 1)],
    beforeResponse: true,
  },
  http_500: {
    name: 'http_500',
    summary: 'HTTP 500 with an OpenAI-style JSON error body',
    args: [],
    beforeResponse: true,
  },
  http_500_text: {
    name: 'http_500_text',
    summary: 'HTTP 500 with a non-JSON (HTML) body',
    args: [],
    beforeResponse: true,
  },
  http_503: {
    name: 'http_503',
    summary: 'HTTP 503 with a JSON error body and `Retry-After: S` (0 = no header)',
    args: [SECONDS('retry_after_s', 0)],
    beforeResponse: true,
  },
  http_503_text: { name: 'http_503_text', summary: 'HTTP 503 with a plain-text body', args: [], beforeResponse: true },
  echo_headers: {
    name: 'echo_headers',
    summary: "HTTP 500 whose body echoes the request's headers (raw, URL-encoded and base64)",
    args: [],
    beforeResponse: true,
  },
  close_headers: {
    name: 'close_headers',
    summary: 'read the request, wait S seconds, close the connection (FIN) before any response byte',
    args: [SECONDS('delay_s', 0.5)],
    beforeResponse: true,
  },
  reset_headers: {
    name: 'reset_headers',
    summary: 'read the request, wait S seconds, reset the connection (RST) before any response byte',
    args: [SECONDS('delay_s', 0.5)],
    beforeResponse: true,
  },
  slow_headers: {
    name: 'slow_headers',
    summary: 'wait S seconds before the request is even queued (no response head meanwhile)',
    args: [SECONDS('delay_s', 2)],
    beforeResponse: true,
  },
  stall_first: {
    name: 'stall_first',
    summary: 'response head at once, then no body byte for S seconds',
    args: [SECONDS('stall_s', 2)],
    beforeResponse: false,
  },
  stall_mid: {
    name: 'stall_mid',
    summary: 'after N token chunks, no byte for S seconds, then the rest',
    args: [SECONDS('stall_s', 2), AFTER(2)],
    beforeResponse: false,
  },
  trickle: {
    name: 'trickle',
    summary: 'every body byte sent on its own, MS milliseconds apart',
    args: [{ name: 'delay_ms', default: 20, min: 0, max: 60_000 }],
    beforeResponse: false,
  },
  reset_mid: {
    name: 'reset_mid',
    summary: 'after N token chunks, reset the connection (RST)',
    args: [AFTER(2)],
    beforeResponse: false,
  },
  close_mid: {
    name: 'close_mid',
    summary: 'after N token chunks, close the connection (FIN) without ending the chunked body',
    args: [AFTER(2)],
    beforeResponse: false,
  },
  malformed_json: {
    name: 'malformed_json',
    summary: 'after N token chunks, a `data:` event whose JSON is cut short; then the response ends',
    args: [AFTER(1)],
    beforeResponse: false,
  },
  non_object: {
    name: 'non_object',
    summary:
      'after N token chunks, a `data:` event that is JSON but not an object (`["not","an","object"]`); then the response ends',
    args: [AFTER(1)],
    beforeResponse: false,
  },
  stream_error: {
    name: 'stream_error',
    summary:
      'after N token chunks, an in-stream `{"error": …}` event, then the response ends without usage or `[DONE]` (llama.cpp)',
    args: [AFTER(2)],
    beforeResponse: false,
  },
  stream_error_cut: {
    name: 'stream_error_cut',
    summary:
      'after N token chunks, the in-stream error line without its blank line, then the connection closes (FIN) inside the chunked body',
    args: [AFTER(2)],
    beforeResponse: false,
  },
  missing_usage: {
    name: 'missing_usage',
    summary: 'the final usage chunk is left out',
    args: [],
    beforeResponse: false,
  },
  missing_done: {
    name: 'missing_done',
    summary: 'the final `data: [DONE]` is left out (the body still ends cleanly)',
    args: [],
    beforeResponse: false,
  },
  huge_line: {
    name: 'huge_line',
    summary: 'after 1 token chunk, one valid `data:` line of BYTES bytes (default 10 MB), then the rest',
    args: [{ name: 'bytes', default: 10_000_000, min: 64, max: 256 * 1024 * 1024 }],
    beforeResponse: false,
  },
  invalid_utf8: {
    name: 'invalid_utf8',
    summary: 'after N token chunks, a content delta carrying bytes that are not UTF-8, then the rest',
    args: [AFTER(1)],
    beforeResponse: false,
  },
  gzip: {
    name: 'gzip',
    summary: 'the stream gzip-compressed with `Content-Encoding: gzip` (never asked for)',
    args: [],
    beforeResponse: false,
  },
} as const satisfies Record<string, FaultDefinition>;

export type FaultName = keyof typeof FAULTS;

/** Short names accepted in a SPEC or header. */
const ALIASES: Readonly<Record<string, FaultName>> = { '429': 'http_429', '500': 'http_500', '503': 'http_503' };

/** One chosen fault with its arguments resolved (defaults applied). */
export interface Fault {
  readonly name: FaultName;
  /** Arguments by name, e.g. `{ stall_s: 2, after_chunks: 2 }`. */
  readonly args: Readonly<Record<string, number>>;
}

/** A parsed SPEC. */
export interface FaultPlan {
  readonly mix: readonly Fault[];
  /** Probability per request (when neither `every` nor `at` is set). */
  readonly rate: number;
  readonly every: number | null;
  readonly at: readonly number[] | null;
  readonly seed: number | null;
  /** The SPEC text as given (normalised whitespace), for messages. */
  readonly text: string;
}

/** A bad SPEC or fault; `message` is one line. */
export class FaultSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FaultSpecError';
  }
}

/** Header a client may send to pick the fault of one request (`none` forces no fault). */
export const FAULT_HEADER = 'x-sim-fault';

/**
 * Parses one fault, `NAME(:NUMBER)*`.
 * @example parseFault('stall_mid:1.5') // { name: 'stall_mid', args: { stall_s: 1.5, after_chunks: 2 } }
 */
export function parseFault(text: string): Fault {
  const [rawName = '', ...rawArgs] = text.trim().split(':');
  const name = (ALIASES[rawName] ?? rawName) as FaultName;
  const def: FaultDefinition | undefined = Object.hasOwn(FAULTS, name) ? FAULTS[name] : undefined;
  if (def === undefined)
    throw new FaultSpecError(`unknown fault '${rawName}' (faults: ${Object.keys(FAULTS).join(', ')})`);
  if (rawArgs.length > def.args.length) {
    throw new FaultSpecError(
      `fault '${def.name}' takes ${def.args.length === 0 ? 'no arguments' : `at most ${def.args.length} (${def.args.map((a) => a.name).join(', ')})`}, got '${text.trim()}'`,
    );
  }
  const args: Record<string, number> = {};
  def.args.forEach((arg, i) => {
    const raw = rawArgs[i];
    if (raw === undefined || raw === '') {
      args[arg.name] = arg.default;
      return;
    }
    const value = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isFinite(value) || value < arg.min || value > arg.max) {
      throw new FaultSpecError(
        `fault '${def.name}': ${arg.name} must be a number from ${arg.min} to ${arg.max}, got '${raw}'`,
      );
    }
    args[arg.name] = value;
  });
  return { name, args };
}

/** The fault as `name:arg:arg` text (every argument written out). */
export function formatFault(fault: Fault): string {
  const def: FaultDefinition = FAULTS[fault.name];
  return [fault.name, ...def.args.map((a) => String(fault.args[a.name] ?? a.default))].join(':');
}

/**
 * Parses a SPEC (grammar in the module comment).
 * @throws FaultSpecError naming the field and what is wrong.
 * @example parseFaultSpec('rate=0.1:mix=429,reset_mid,stall_first:2').rate // 0.1
 */
export function parseFaultSpec(spec: string): FaultPlan {
  const text = spec.trim();
  if (text === '') throw new FaultSpecError('empty fault spec');
  // A ':' starts a new field only when `NAME=` follows; otherwise it separates a fault's arguments.
  const fields = /^[a-z_]+=/.test(text) ? text.split(/:(?=[a-z_]+=)/) : [`mix=${text}`];
  let mix: Fault[] | null = null;
  let rate: number | null = null;
  let every: number | null = null;
  let at: number[] | null = null;
  let seed: number | null = null;
  const seen = new Set<string>();
  for (const field of fields) {
    const eq = field.indexOf('=');
    const key = field.slice(0, eq);
    const value = field.slice(eq + 1).trim();
    if (seen.has(key)) throw new FaultSpecError(`'${key}' is given twice`);
    seen.add(key);
    switch (key) {
      case 'mix':
        if (value === '') throw new FaultSpecError('mix= needs at least one fault');
        mix = value.split(',').map(parseFault);
        break;
      case 'rate':
        rate = /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(value) ? Number(value) : Number.NaN;
        if (Number.isNaN(rate)) throw new FaultSpecError(`rate= must be a probability from 0 to 1, got '${value}'`);
        break;
      case 'every':
        every = wholeNumber('every', value, 1);
        break;
      case 'at':
        at = value.split(',').map((part) => wholeNumber('at', part.trim(), 0));
        break;
      case 'seed':
        seed = wholeNumber('seed', value, 0);
        break;
      default:
        throw new FaultSpecError(`unknown field '${key}=' (fields: rate, mix, every, at, seed)`);
    }
  }
  if (mix === null) throw new FaultSpecError('a fault spec needs mix=FAULT[,FAULT…]');
  if (rate !== null && (every !== null || at !== null))
    throw new FaultSpecError('rate= cannot be combined with every= or at=');
  if (every !== null && at !== null) throw new FaultSpecError('every= and at= exclude each other');
  return { mix, rate: rate ?? 1, every, at, seed, text };
}

function wholeNumber(field: string, value: string, min: number): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min)
    throw new FaultSpecError(`${field}= must be a whole number ≥ ${min}, got '${value}'`);
  return n;
}

/**
 * Chooses the fault of each arrival. Deterministic: the same plan, seed and arrival index give the
 * same fault on every machine (the random choice uses the simulator's seeded sub-streams).
 */
export class FaultSchedule {
  readonly #plan: FaultPlan | null;
  readonly #seed: number;
  readonly #at: Map<number, number> | null;

  constructor(plan: FaultPlan | null, simSeed: number) {
    this.#plan = plan;
    this.#seed = plan?.seed ?? simSeed;
    this.#at = plan?.at ? new Map(plan.at.map((index, position) => [index, position])) : null;
  }

  /** The fault for arrival `index` (0-based), or null. */
  faultFor(index: number): Fault | null {
    const plan = this.#plan;
    if (plan === null || plan.mix.length === 0) return null;
    const pick = (k: number): Fault => plan.mix[k % plan.mix.length] as Fault;
    if (this.#at !== null) {
      const position = this.#at.get(index);
      return position === undefined ? null : pick(position);
    }
    if (plan.every !== null) return (index + 1) % plan.every === 0 ? pick((index + 1) / plan.every - 1) : null;
    if (plan.rate <= 0) return null;
    const rng = deriveRng(this.#seed, 'fault', index);
    if (rng() >= plan.rate) return null;
    return pick(Math.floor(rng() * plan.mix.length));
  }
}

/**
 * The fault asked for by a request header: `NAME[:ARG…]`, or `none`. Returns undefined when the
 * header is absent (the schedule decides), null for `none`.
 * @throws FaultSpecError for an unknown fault or bad argument (answered with HTTP 400).
 */
export function faultFromHeader(value: string | string[] | undefined): Fault | null | undefined {
  if (value === undefined) return undefined;
  const text = (Array.isArray(value) ? value.join(',') : value).trim();
  if (text === '' || text === 'none') return text === 'none' ? null : undefined;
  return parseFault(text);
}
