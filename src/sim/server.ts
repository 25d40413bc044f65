/**
 * The simulator's HTTP face: an OpenAI-compatible server on node:http whose timing comes from the
 * queueing model in src/sim/engine.ts. Paths work with or without the `/v1` prefix.
 *
 *   GET  /v1/models             model list (id, max_model_len, owned_by)
 *   POST /v1/chat/completions   streaming (SSE) and non-streaming chat
 *   POST /v1/completions        streaming and non-streaming raw-prompt completions
 *   POST /v1/responses          OpenAI Responses API, streamed (named `response.*` events) or not
 *   POST /v1/messages           Anthropic Messages API, streamed (`message_start` … `message_stop`)
 *                               or not; its errors use Anthropic's shape
 *   POST /v1/embeddings         embeddings: a prefill-only pass through the same engine
 *   POST /tokenize              {"content"|"prompt": text} or {"messages": [...]} → {"tokens", "count", "max_model_len"}
 *   GET  /health                {"status":"ok"}
 *   GET  /sim/ground-truth      every kept ground-truth record; `?id=chatcmpl-…` for one
 *   GET  /sim/stats             engine counters
 *   GET  /metrics               Prometheus text format in vLLM V1's names (src/sim/vllm-metrics.ts):
 *                               running, waiting, KV usage, token and request counters, TTFT /
 *                               inter-token / e2e histograms, from the engine's own state
 * Errors use OpenAI's shape `{"error":{"message","type","param","code"}}`, except on /v1/messages:
 * `{"type":"error","error":{"type","message"}}`.
 *
 * Fault injection (config key `faults`, `servebench sim --faults SPEC`, or a request's
 * `x-sim-fault: NAME[:ARG]` header) applies to streaming generation requests only; see
 * src/sim/faults.ts and docs/reliability.md.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RealClock } from './clock.js';
import { resolveSimConfig, type SimConfig, type SimConfigInput } from './config.js';
import { Engine, type EngineStats, type SeqHandle } from './engine.js';
import { GroundTruthStore, type GroundTruth } from './ground-truth.js';
import { TurnQueue } from '../util/turns.js';
import { SlicedQueue } from '../util/sliced-queue.js';
import {
  HttpError,
  parseChatRequest,
  parseCompletionRequest,
  parseEmbeddingsRequest,
  parseMessagesRequest,
  parseResponsesRequest,
  type EmbeddingRequest,
  type GenerationRequest,
} from './requests.js';
import { MessagesDialect, ResponsesDialect, type Dialect } from './dialects.js';
import { EmbeddingWriter } from './embeddings.js';
import { ResponseWriter, responseShape } from './response-writer.js';
import { deriveRng, randomHex } from './rng.js';
import { pieceIds, tokenize } from './tokenizer.js';
import {
  FAULT_HEADER,
  FAULTS,
  FaultSchedule,
  FaultSpecError,
  faultFromHeader,
  formatFault,
  parseFaultSpec,
  type Fault,
  type FaultName,
} from './faults.js';
import { FaultSink, OPENAI_FAULT_EVENTS } from './faults-stream.js';
import { SimMetrics } from './vllm-metrics.js';

/** A running simulator. */
export interface SimHandle {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:40123/v1`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The validated config in effect (defaults applied). */
  readonly config: SimConfig;
  /** Ground truth of one request by response id (a snapshot), or undefined. */
  groundTruth(id: string): GroundTruth | undefined;
  /** Every kept ground-truth record, in arrival order. */
  groundTruthAll(): GroundTruth[];
  /** Engine counters (running, waiting, completed, …). */
  stats(): EngineStats;
  /** The simulator's clock now (ns since start): lets an in-process client align its readings with ground truth. */
  nowNs(): number;
  /** How many requests each fault was injected into so far (faults never injected are absent). */
  faultCounts(): Partial<Record<FaultName, number>>;
  /** Stop accepting, drop in-flight requests (their sockets are closed) and release the port. */
  close(): Promise<void>;
}

interface SimContext {
  config: SimConfig;
  clock: RealClock;
  engine: Engine;
  metrics: SimMetrics;
  truth: GroundTruthStore;
  /**
   * Generation requests are read, parsed, tokenized and queued one per loop turn, in arrival order:
   * `receivedNs` is stamped when Node hands a request over, which happens only while the loop
   * polls, so processing a burst in one go would stamp later arrivals late and
   * ground-truth comparisons would count that wait against the client (util/turns.ts).
   */
  intake: TurnQueue;
  /** Stream writes go out in short slices, so arrivals are stamped on time during a step (util/sliced-queue.ts). */
  outbox: SlicedQueue;
  faults: FaultSchedule;
  /** Streaming generation requests seen so far: the arrival index of the fault schedule. */
  faultArrivals: number;
  faultCounts: Partial<Record<FaultName, number>>;
  closed: boolean;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Whose error shape a route answers in. */
type ErrorDialect = 'openai' | 'anthropic';

/** Anthropic's error type for an HTTP status. */
function anthropicErrorType(status: number): string {
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 503 || status === 529) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** An error body in the route's shape. */
function errorBody(dialect: ErrorDialect, status: number, message: string, type: string, code: unknown): unknown {
  if (dialect === 'anthropic') return { type: 'error', error: { type: anthropicErrorType(status), message } };
  return { error: { message, type, param: null, code } };
}

function sendError(
  res: ServerResponse,
  err: HttpError,
  headers: Record<string, string> = {},
  dialect: ErrorDialect = 'openai',
): void {
  const body =
    dialect === 'anthropic'
      ? errorBody(dialect, err.status, err.message, err.type, err.code)
      : { error: { message: err.message, type: err.type, param: err.param, code: err.code } };
  sendJson(res, err.status, body, headers);
}

/** The path without `/v1` and trailing slashes. */
function routePath(url: URL): string {
  return url.pathname.replace(/^\/v1(?=\/)/, '').replace(/\/+$/, '') || '/';
}

/** Response id prefixes per endpoint. */
const ID_PREFIX: Record<GenerationRequest['kind'], string> = {
  chat: 'chatcmpl-',
  completion: 'cmpl-',
  responses: 'resp_',
  messages: 'msg_',
};

function createDialect(kind: GenerationRequest['kind']): Dialect | undefined {
  if (kind === 'responses') return new ResponsesDialect();
  if (kind === 'messages') return new MessagesDialect();
  return undefined;
}

/** Read the whole body, refusing more than `limit` bytes (HTTP 413). */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit)
    throw new HttpError(413, 'request_too_large', `request body exceeds ${limit} bytes`);
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > limit) throw new HttpError(413, 'request_too_large', `request body exceeds ${limit} bytes`);
    parts.push(part);
  }
  return Buffer.concat(parts);
}

async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const body = await readBody(req, limit);
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch (err) {
    throw new HttpError(400, 'invalid_json', `request body is not valid JSON: ${(err as Error).message}`);
  }
}

/** Queue a validated generation request and wire its response; `fault` is a stream fault or null. */
function generate(
  ctx: SimContext,
  gen: GenerationRequest,
  res: ServerResponse,
  receivedNs: number,
  fault: Fault | null = null,
): void {
  const dialect = createDialect(gen.kind);
  const writer = new ResponseWriter(
    ctx.config,
    ctx.clock,
    responseShape(gen),
    res,
    fault === null ? undefined : new FaultSink(res, fault, dialect?.faultEvents ?? OPENAI_FAULT_EVENTS),
    ctx.outbox,
    ctx.metrics,
    dialect,
  );
  const submittedNs = ctx.clock.nowNs();
  const tool = toolCallFor(ctx, gen);
  const limits = tool === null ? gen.limits : { ...gen.limits, contentTokens: ctx.config.tool_call_arguments_tokens };
  const handle = ctx.engine.submit({ promptPieces: gen.promptPieces, limits }, writer);
  const id = ID_PREFIX[gen.kind] + randomHex(deriveRng(ctx.config.seed, 'response-id', handle.index), 16);
  const record = newRecord(id, handle, gen.kind, gen.stream, receivedNs, submittedNs);
  ctx.truth.add(record);
  writer.attach(handle, { id, created: Math.floor(Date.now() / 1000), model: gen.model }, record, tool);
}

/**
 * The tool a request's answer calls, or null: with a non-empty `tools` array, its first tool with
 * probability `tool_call_probability`, drawn from the seed and the arrival index it is about to get
 * (so a run with the same seed and arrival order makes the same calls).
 */
function toolCallFor(ctx: SimContext, gen: GenerationRequest): string | null {
  if (gen.toolName === null) return null;
  const draw = deriveRng(ctx.config.seed, 'tool-call', ctx.engine.peekIndex())();
  return draw < ctx.config.tool_call_probability ? gen.toolName : null;
}

/** A fresh ground-truth record of an accepted request. */
function newRecord(
  id: string,
  handle: SeqHandle,
  endpoint: GroundTruth['endpoint'],
  stream: boolean,
  receivedNs: number,
  submittedNs: number,
): GroundTruth {
  return {
    id,
    index: handle.index,
    endpoint,
    stream,
    status: 'waiting',
    promptTokens: handle.promptTokens,
    cachedTokens: null,
    completionTokens: 0,
    reasoningTokens: 0,
    finishReason: null,
    toolCalls: 0,
    toolArgumentBytes: 0,
    receivedNs,
    submittedNs,
    admittedNs: null,
    firstOutputNs: null,
    firstContentNs: null,
    lastChunkNs: null,
    cancelledNs: null,
    model: {
      arrivalNs: handle.arrivalNs,
      admittedNs: null,
      firstOutputNs: null,
      firstContentNs: null,
      lastChunkNs: null,
    },
  };
}

/** Queue a validated embeddings request (prefill only; never faulted: it is not streamed). */
function embed(ctx: SimContext, request: EmbeddingRequest, res: ServerResponse, receivedNs: number): void {
  const writer = new EmbeddingWriter(ctx.config.seed, ctx.clock, request, res, ctx.metrics);
  const submittedNs = ctx.clock.nowNs();
  const handle = ctx.engine.submit(
    {
      promptPieces: request.promptPieces,
      limits: { maxTokens: 0, minTokens: 0, ignoreEos: false, reasoningTokens: 0 },
      prefillOnly: true,
    },
    writer,
  );
  const id = 'embd-' + randomHex(deriveRng(ctx.config.seed, 'response-id', handle.index), 16);
  const record = newRecord(id, handle, 'embeddings', false, receivedNs, submittedNs);
  ctx.truth.add(record);
  writer.attach(handle, record);
}

/**
 * A generation request, with its fault if it gets one: the `x-sim-fault` header wins, else the
 * schedule by arrival index. Only streaming requests count as arrivals and can be faulted.
 */
async function serveGeneration(
  ctx: SimContext,
  gen: GenerationRequest,
  req: IncomingMessage,
  res: ServerResponse,
  receivedNs: number,
): Promise<void> {
  let fault: Fault | null = null;
  if (gen.stream) {
    const index = ctx.faultArrivals++;
    let asked: Fault | null | undefined;
    try {
      asked = faultFromHeader(req.headers[FAULT_HEADER]);
    } catch (error) {
      throw new HttpError(400, 'invalid_fault', `${FAULT_HEADER}: ${(error as FaultSpecError).message}`);
    }
    fault = asked === undefined ? ctx.faults.faultFor(index) : asked;
  }
  if (fault !== null) {
    ctx.faultCounts[fault.name] = (ctx.faultCounts[fault.name] ?? 0) + 1;
    res.setHeader('x-sim-fault', formatFault(fault));
    if (FAULTS[fault.name].beforeResponse) {
      const proceed = await faultBeforeResponse(ctx, fault, req, res, gen.kind === 'messages' ? 'anthropic' : 'openai');
      if (!proceed) return;
      fault = null;
    }
  }
  generate(ctx, gen, res, receivedNs, fault);
}

/** Resolves after `ms`; the timer never keeps the process alive by itself. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * Faults that decide the response before its head: answers, resets, closes, or a delay after
 * which the request proceeds normally. Returns true when the request should still be generated.
 */
async function faultBeforeResponse(
  ctx: SimContext,
  fault: Fault,
  req: IncomingMessage,
  res: ServerResponse,
  dialect: ErrorDialect,
): Promise<boolean> {
  const seconds = (name: string): number => fault.args[name] ?? 0;
  // Error bodies of the HTTP faults: the route's own JSON shape where a real server would use one.
  const faultError = (status: number, message: string, type: string, code: string | number): unknown =>
    errorBody(dialect, status, message, type, code);
  switch (fault.name) {
    case 'http_429': {
      const retry = seconds('retry_after_s');
      sendJson(
        res,
        429,
        faultError(
          429,
          'simulated: rate limit reached for requests, retry later',
          'rate_limit_error',
          'rate_limit_exceeded',
        ),
        { 'retry-after': String(retry) },
      );
      return false;
    }
    case 'http_500':
      sendJson(res, 500, faultError(500, 'simulated internal server error', 'server_error', 500));
      return false;
    case 'http_500_text':
      res.writeHead(500, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1><p>simulated upstream failure</p></body></html>\n',
      );
      return false;
    case 'http_503': {
      const retry = seconds('retry_after_s');
      sendJson(
        res,
        503,
        faultError(503, 'simulated: the server is overloaded, try again later', 'service_unavailable', 503),
        retry > 0 ? { 'retry-after': String(retry) } : {},
      );
      return false;
    }
    case 'http_503_text':
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Service Unavailable: simulated overload\n');
      return false;
    case 'echo_headers': {
      // What a careless proxy or framework does: the request's headers, verbatim and encoded, in the error.
      const headers = JSON.stringify(req.headers);
      const authorization = req.headers['authorization'] ?? '';
      sendJson(res, 500, {
        ...(dialect === 'anthropic' ? { type: 'error' } : {}),
        error: {
          message: `simulated error; request headers were ${headers}`,
          type: dialect === 'anthropic' ? 'api_error' : 'server_error',
          code: 500,
          headers: req.headers,
          raw_headers: req.rawHeaders.join('\n'),
          headers_urlencoded: encodeURIComponent(headers),
          headers_base64: Buffer.from(headers).toString('base64'),
          authorization_base64: Buffer.from(authorization).toString('base64'),
          authorization_base64url: Buffer.from(authorization).toString('base64url'),
        },
      });
      return false;
    }
    case 'close_headers':
    case 'reset_headers': {
      await sleep(seconds('delay_s') * 1000);
      const socket = req.socket;
      if (!socket.destroyed) {
        if (fault.name === 'reset_headers') socket.resetAndDestroy();
        else socket.destroy();
      }
      return false;
    }
    case 'slow_headers':
      await sleep(seconds('delay_s') * 1000);
      return !ctx.closed && !res.destroyed && !req.socket.destroyed;
    default:
      return true;
  }
}

async function tokenizeRoute(ctx: SimContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req, ctx.config.max_request_bytes);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new HttpError(400, 'invalid_request', 'request body must be a JSON object');
  const b = body as Record<string, unknown>;
  let pieces: string[];
  if (Array.isArray(b['messages'])) {
    // Same template as chat requests, so `count` equals usage.prompt_tokens for the same messages.
    pieces = parseChatRequest(
      { ...ctx.config, max_model_len: Number.MAX_SAFE_INTEGER },
      { messages: b['messages'], max_tokens: 1 },
    ).promptPieces;
  } else {
    const text = b['content'] ?? b['prompt'];
    if (typeof text !== 'string')
      throw new HttpError(400, 'invalid_request', 'expected "content" (or "prompt") as a string, or "messages"');
    pieces = tokenize(text);
  }
  const ids = pieceIds(pieces);
  const tokens = b['with_pieces'] === true ? ids.map((id, i) => ({ id, piece: pieces[i] })) : ids;
  sendJson(res, 200, { tokens, count: pieces.length, max_model_len: ctx.config.max_model_len });
}

function modelsBody(config: SimConfig): unknown {
  return {
    object: 'list',
    data: [
      {
        id: config.model,
        object: 'model',
        created: 0,
        owned_by: 'servebench-sim',
        root: config.model,
        parent: null,
        max_model_len: config.max_model_len,
      },
    ],
  };
}

function groundTruthRoute(ctx: SimContext, url: URL, res: ServerResponse): void {
  const id = url.searchParams.get('id');
  if (id === null) {
    // The origin as a decimal string: it is a bigint beyond 2^53 on a machine up for more than 104 days.
    return sendJson(res, 200, {
      clock: 'monotonic ns since sim start',
      monotonic_origin_ns: String(ctx.clock.origin),
      requests: ctx.truth.all(),
    });
  }
  const record = ctx.truth.get(id);
  if (record === undefined) throw new HttpError(404, 'not_found', `no ground truth for id ${id}`);
  sendJson(res, 200, record);
}

const ROUTES: Record<string, readonly string[]> = {
  '/models': ['GET'],
  '/chat/completions': ['POST'],
  '/completions': ['POST'],
  '/responses': ['POST'],
  '/messages': ['POST'],
  '/embeddings': ['POST'],
  '/tokenize': ['POST'],
  '/health': ['GET'],
  '/sim/ground-truth': ['GET'],
  '/sim/stats': ['GET'],
  '/metrics': ['GET'],
};

async function route(ctx: SimContext, req: IncomingMessage, res: ServerResponse, receivedNs: number): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sim.invalid');
  const path = routePath(url);
  const methods = ROUTES[path];
  if (methods === undefined) throw new HttpError(404, 'not_found', `no route ${req.method ?? ''} ${url.pathname}`);
  if (!methods.includes(req.method ?? '')) {
    return sendError(
      res,
      new HttpError(405, 'method_not_allowed', `${req.method ?? ''} not allowed on ${url.pathname}`),
      { allow: methods.join(', ') },
      path === '/messages' ? 'anthropic' : 'openai',
    );
  }
  const { config } = ctx;
  switch (path) {
    case '/models':
      return sendJson(res, 200, modelsBody(config));
    case '/health':
      return sendJson(res, 200, { status: 'ok' });
    case '/sim/stats':
      return sendJson(res, 200, ctx.engine.stats());
    case '/sim/ground-truth':
      return groundTruthRoute(ctx, url, res);
    case '/metrics': {
      const { contentType, text } = await ctx.metrics.exposition();
      res.writeHead(200, { 'content-type': contentType });
      res.end(text);
      return;
    }
    case '/tokenize':
      return tokenizeRoute(ctx, req, res);
    // Even the body waits for the request's turn: reading it through the stream's async iterator
    // and parsing its JSON takes time that every later request of the same poll would wait for.
    case '/chat/completions': {
      await ctx.intake.next();
      return serveGeneration(
        ctx,
        parseChatRequest(config, await readJson(req, config.max_request_bytes)),
        req,
        res,
        receivedNs,
      );
    }
    case '/completions': {
      await ctx.intake.next();
      return serveGeneration(
        ctx,
        parseCompletionRequest(config, await readJson(req, config.max_request_bytes)),
        req,
        res,
        receivedNs,
      );
    }
    case '/responses': {
      await ctx.intake.next();
      const body = await readJson(req, config.max_request_bytes);
      return serveGeneration(ctx, parseResponsesRequest(config, body), req, res, receivedNs);
    }
    case '/messages': {
      await ctx.intake.next();
      const body = await readJson(req, config.max_request_bytes);
      return serveGeneration(ctx, parseMessagesRequest(config, body), req, res, receivedNs);
    }
    case '/embeddings': {
      await ctx.intake.next();
      const body = await readJson(req, config.max_request_bytes);
      return embed(ctx, parseEmbeddingsRequest(config, body), res, receivedNs);
    }
  }
}

function handler(ctx: SimContext) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const receivedNs = ctx.clock.nowNs();
    route(ctx, req, res, receivedNs).catch((err: unknown) => {
      const dialect: ErrorDialect =
        routePath(new URL(req.url ?? '/', 'http://sim.invalid')) === '/messages' ? 'anthropic' : 'openai';
      if (err instanceof HttpError) {
        // After a 413 the rest of the body is unread: close the connection rather than drain it.
        sendError(res, err, err.status === 413 ? { connection: 'close' } : {}, dialect);
      } else {
        sendError(
          res,
          new HttpError(500, 'internal_error', `simulator bug: ${(err as Error).message}`, 'server_error'),
          {},
          dialect,
        );
      }
    });
  };
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * Start the simulator. `config` is validated (defaults applied); an invalid one throws UsageError.
 * @example
 * const sim = await startSim({ decode_step_ms: 5, max_num_seqs: 4 });
 * const r = await fetch(`${sim.url}/models`); // {"object":"list","data":[{"id":"servebench-sim",…}]}
 * await sim.close();
 */
export async function startSim(config: SimConfigInput = {}): Promise<SimHandle> {
  const resolved = resolveSimConfig(config);
  const clock = new RealClock(resolved.timer_spin_us * 1000);
  const faults = new FaultSchedule(resolved.faults === null ? null : parseFaultSpec(resolved.faults), resolved.seed);
  const engine = new Engine(resolved, clock);
  const ctx: SimContext = {
    config: resolved,
    clock,
    engine,
    metrics: new SimMetrics(resolved, engine),
    truth: new GroundTruthStore(resolved.ground_truth_limit),
    intake: new TurnQueue(),
    outbox: new SlicedQueue(),
    faults,
    faultArrivals: 0,
    faultCounts: {},
    closed: false,
  };
  // noDelay: every SSE chunk must leave at once; Nagle would hold small writes up to an ACK.
  const server = createServer({ noDelay: true, keepAlive: true }, handler(ctx));
  const address = await listen(server, resolved.port, resolved.host);
  const hostForUrl = address.address.includes(':') ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostForUrl}:${address.port}/v1`,
    host: address.address,
    port: address.port,
    config: resolved,
    groundTruth: (id) => ctx.truth.get(id),
    groundTruthAll: () => ctx.truth.all(),
    stats: () => ctx.engine.stats(),
    nowNs: () => clock.nowNs(),
    faultCounts: () => ({ ...ctx.faultCounts }),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        ctx.closed = true;
        ctx.engine.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
