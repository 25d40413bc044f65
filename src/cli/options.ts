/**
 * One table of every `servebench run` flag: name, type, default, bounds and help. It feeds the
 * argument parser (args/parse.ts), the bounds checks, the help text (args/help.ts) and
 * docs/cli.md (flag-docs.ts), so they cannot drift apart. Bounds and defaults follow the
 * reference harness (anvil spec §1.2) unless noted. The other commands' tables are in command-flags.ts.
 */

import type { FlagSpec } from './args/spec.js';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_STREAM_MAX_LINE_BYTES } from '../client/stream.js';

export type { FlagSpec } from './args/spec.js';
export { formatFlagHelp } from './args/help.js';

const THINKING_MODES = ['default', 'enabled', 'disabled', 'unsupported'] as const;
const ARRIVAL_PROCESSES = ['constant', 'poisson', 'gamma'] as const;
const PREFIX_POLICIES = ['shared', 'unique', 'none'] as const;
const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'max', 'xhigh'] as const;

/** Every flag of `servebench run`, in help order. */
export const RUN_FLAGS: readonly FlagSpec[] = [
  { name: 'base-url', type: 'string', meta: 'URL', defaultText: 'start the built-in simulator', help: 'OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1: http or https, without credentials, query or fragment; localhost is refused (use 127.0.0.1)' },
  { name: 'model', type: 'string', meta: 'ID', defaultText: 'the only model /models lists', help: 'model id sent in each request' },
  { name: 'api-key-env', type: 'string', meta: 'NAME', help: 'environment variable holding the API key; sent as Authorization: Bearer, never written to any file, log or message' },
  { name: 'api-key-file', type: 'string', meta: 'FILE', help: 'or a file holding the API key on one line (a regular file or a link to one, at most 64 KiB, trimmed; a warning unless only its owner can read it)' },
  { name: 'manifest', type: 'string', meta: 'FILE', help: 'TOML manifest of named targets (README: Manifests); needs --tier' },
  { name: 'tier', type: 'string', meta: 'NAME', help: 'target from the manifest: fills base URL (or port), model, engine and GPU (flags win); recorded as manifest, tier and source_recipe = FILE#NAME' },
  { name: 'engine', type: 'string', meta: 'TEXT', defaultText: 'from --tier, else null', help: 'engine label recorded in the result' },
  { name: 'gpu', type: 'string', meta: 'TEXT', defaultText: 'from --tier, else null', help: 'GPU label recorded in the result' },
  { name: 'requests', type: 'int', default: 60, min: 1, max: 1000000, meta: 'N', help: 'number of requests (ignored with --burst; the reference allows up to 10000)' },
  { name: 'concurrency', type: 'int', default: 20, min: 1, max: 100000, meta: 'N', help: 'closed loop: requests in flight at once (ignored with --burst; the reference allows up to 256)' },
  { name: 'burst', type: 'int', default: 0, min: 0, max: 256, meta: 'N', help: 'if > 0: requests = concurrency = N, all at once (closed loop only)' },
  { name: 'rate', type: 'float', min: Number.MIN_VALUE, max: 100000, meta: 'R', help: 'open loop: start R requests per second whatever the server does (instead of --concurrency; README: Load models)' },
  { name: 'arrival', type: 'string', default: 'poisson', choices: ARRIVAL_PROCESSES, meta: 'PROCESS', help: 'open-loop arrivals: constant, poisson, or gamma (with --burstiness)' },
  { name: 'burstiness', type: 'float', default: 1, min: Number.MIN_VALUE, max: 1000, meta: 'K', help: 'gamma shape: 1 = poisson, < 1 burstier, > 1 more regular' },
  { name: 'max-concurrency', type: 'int', min: 1, max: 100000, meta: 'N', help: 'open loop: at most N requests in flight; later arrivals wait (their lag is recorded)' },
  { name: 'duration', type: 'float', min: Number.MIN_VALUE, max: 604800, meta: 'S', help: 'stop starting requests after S seconds (with --requests: whichever comes first; alone: the run is bounded by time only)' },
  { name: 'warmup', type: 'string', meta: 'N|Ns', help: 'exclude the first N requests (or those started in the first N seconds, e.g. 5s) from every figure; they still run. A count that covers every planned request is refused (exit 2, nothing sent); a run whose every request was warm-up writes its result and exits 1' },
  { name: 'ramp', type: 'float', default: 0, min: 0, max: 86400, meta: 'S', help: 'linear ramp over S seconds: of the rate (open loop) or of the concurrency from 1 (closed loop)' },
  { name: 'trace', type: 'string', meta: 'FILE', help: 'replay a JSONL trace: per line timestamp (ms), input_length or input_tokens, output_length or output_tokens' },
  { name: 'slo', type: 'string', meta: 'SPEC', help: 'service-level objectives for goodput, e.g. "ttft_p95<=2000,itl_p95<=100"' },
  { name: 'on-interrupt', type: 'string', default: 'drain', choices: ['drain', 'cancel'], meta: 'MODE', help: 'on SIGINT/SIGTERM: let in-flight requests finish (drain) or cancel them; a second signal cancels' },
  { name: 'journal', type: 'string', meta: 'FILE', defaultText: 'beside the result: <result>.journal.jsonl (-2, -3… if taken)', help: 'write each finished request to this new JSONL journal as it completes; refused if FILE exists (a journal never replaces a file)' },
  { name: 'shared-prefix-tokens', type: 'int', default: 8000, min: 0, max: 262144, meta: 'N', help: 'size of the prefix shared by every prompt, in estimated tokens (3 characters each)' },
  { name: 'ctx-tokens', type: 'int', default: 0, min: 0, max: 1048576, meta: 'N', help: 'fixed context per request, 0 or at least 32 (0: sample the reference distribution with --seed)' },
  { name: 'context-buckets', type: 'string', meta: 'SPEC|FILE', defaultText: 'the reference buckets', help: 'sampled plan from your own cumulative buckets, e.g. 4096:0.5,32768:1.0, or a file with that text or [{"tokens", "up_to"}]; needs --ctx-tokens 0' },
  { name: 'tokenizer', type: 'string', default: 'server', meta: 'MODE', help: "how prompts are sized to their planned context: server (learn the server's tokenizer), hf:PATH (a tokenizer.json or its directory), tiktoken:o200k_base|cl100k_base, chars:3.0 (the reference's exact bytes, not calibrated); README: Prompts that really are the planned size" },
  { name: 'prefix', type: 'string', default: 'shared', choices: PREFIX_POLICIES, meta: 'POLICY', help: 'shared: every prompt starts with the same --shared-prefix-tokens; unique: no two prompts share a prefix; none: no prefix section' },
  { name: 'cache-bust', type: 'boolean', default: false, help: 'put a per-run random salt first in every prompt, so a rerun cannot hit the prefix cache' },
  { name: 'dataset', type: 'string', meta: 'FILE', help: 'prompts from a JSONL ({"prompt"} or {"messages"}, optional "max_tokens") or ShareGPT JSON file, sampled with --seed' },
  { name: 'ignore-eos', type: 'boolean', default: false, help: 'ask the server to ignore end-of-sequence so every output runs to --max-tokens (ignore_eos: vLLM, SGLang, llama.cpp)' },
  { name: 'min-tokens', type: 'int', default: 0, min: 0, max: 65536, meta: 'N', help: 'ask for at least N output tokens, at most --max-tokens (min_tokens: vLLM, SGLang)' },
  { name: 'seed', type: 'int', default: 0, meta: 'N', help: 'seed of the sampled context plan (a CPython-compatible Mersenne Twister: the same plan as the reference), of dataset sampling and of open-loop arrivals' },
  { name: 'max-tokens', type: 'int', default: 64, min: 1, max: 65536, meta: 'N', help: 'completion cap per request' },
  { name: 'max-model-len', type: 'int', default: 0, min: 0, max: 1048576, meta: 'N', help: 'context window override, above --max-tokens plus --margin (0: ask the server\'s /models)' },
  { name: 'margin', type: 'int', default: 1024, min: 0, max: 1048576, meta: 'N', help: 'headroom kept below the window: prompts are clamped to window − max_tokens − margin' },
  { name: 'thinking-mode', type: 'string', choices: THINKING_MODES, meta: 'MODE', defaultText: 'default', help: 'enabled|disabled send chat_template_kwargs.enable_thinking; default|unsupported send nothing (as the reference, spec §1.4, with its model-family rules)' },
  { name: 'no-thinking', type: 'boolean', default: false, help: 'same as --thinking-mode disabled' },
  { name: 'reasoning-effort', type: 'string', choices: REASONING_EFFORTS, meta: 'E', help: `top-level reasoning_effort sent with each request: ${REASONING_EFFORTS.join(', ')} (not with --no-thinking or an explicit --thinking-mode)` },
  { name: 'timeout', type: 'float', default: 900, min: Number.MIN_VALUE, max: 3600, meta: 'S', help: 'seconds without a byte (connect or read) before a request fails (TimeoutError)' },
  { name: 'request-timeout', type: 'float', min: Number.MIN_VALUE, max: 86400, meta: 'S', defaultText: 'none', help: 'whole-request deadline: a request (each attempt) still unfinished after S seconds fails with DeadlineExceeded (a trickling stream never trips --timeout)' },
  { name: 'max-response-bytes', type: 'int', default: DEFAULT_MAX_RESPONSE_BYTES, min: 1024, max: 1024 * 1024 * 1024 * 1024, meta: 'N', help: 'a response body longer than N bytes (default 64 MiB) fails the request (ResponseTooLarge)' },
  { name: 'max-line-bytes', type: 'int', default: DEFAULT_STREAM_MAX_LINE_BYTES, min: 1024, max: 256 * 1024 * 1024, meta: 'N', help: 'an SSE line (or one event\'s data) longer than N bytes (default 1 MiB) fails the request (SSEParseError); bounds each stream\'s memory' },
  { name: 'retries', type: 'int', default: 0, min: 0, max: 10, meta: 'N', help: 'resend a request up to N times after HTTP 429/503 or a connection failure before any response byte; each attempt is recorded (servebench.retries)' },
  { name: 'retry-max-wait', type: 'float', default: 30, min: 0, max: 3600, meta: 'S', help: 'longest wait before a retry, seconds (caps Retry-After; without it the wait is 0.5 s doubling)' },
  { name: 'plan', type: 'string', meta: 'FILE', help: 'execute a run plan written by servebench plan: the plan fixes the model, workload, load and client bounds, so only the target (--base-url, --api-key-env/--api-key-file, --sim-config) and the run\'s own files and output flags may be given with it; a plan made for another model or window than the target reports is refused' },
  { name: 'output', type: 'string', meta: 'FILE', defaultText: 'results/<run_id>.json', help: 'result file; checked before any request, written atomically' },
  { name: 'report', type: 'string', meta: 'FILE', help: 'after the result (sweep: the summary) is written, also write a self-contained HTML report to FILE; checked before any request' },
  { name: 'sim-config', type: 'string', meta: 'FILE', defaultText: 'the embedded profile', help: 'configuration (JSON or TOML) of the built-in simulator when no --base-url is given; refused with --base-url or a manifest tier\'s target, which it cannot configure' },
  { name: 'workers', type: 'int', default: 1, min: 1, max: 256, meta: 'N', help: 'stream requests from N worker threads when one core is not enough (scheduling, journal and metrics stay in one thread; 1: no worker thread; README: Scaling the client across cores)' },
  { name: 'cold-connections', type: 'boolean', default: false, help: 'do not open the connection pool before the run, and start each request\'s clock when it is handed to the HTTP stack (as the reference did): connection set-up then counts in the first requests\' TTFT (recorded in servebench.connections)' },
  { name: 'dry-run', type: 'boolean', default: false, help: 'validate and print the plan (per-request context sizes, prompt-set id, body shape); no network, no file' },
  { name: 'json', type: 'boolean', default: false, help: 'print the plan (with --dry-run) or the result as JSON on stdout; messages go to stderr' },
  { name: 'quiet', type: 'boolean', default: false, help: 'no progress lines; the summary and warnings are still printed' },
  { name: 'help', type: 'boolean', default: false, short: 'h', help: 'show this help' },
];
