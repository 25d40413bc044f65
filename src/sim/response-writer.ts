/**
 * Turns one request's engine events into bytes on its HTTP response (SSE or a single JSON body)
 * and keeps its ground-truth record current. One instance per accepted generation request.
 */
import type { ServerResponse } from 'node:http';
import {
  chatChunk,
  chatCompletion,
  type ChatToolCall,
  completionChunk,
  sseData,
  SSE_DONE,
  textCompletion,
  usageJson,
  type ResponseMeta,
} from './chunks.js';
import type { SimClock } from './clock.js';
import type { SimConfig } from './config.js';
import type { AdmittedEvent, ChunkEvent, EngineListener, SeqHandle } from './engine.js';
import { recordAdmitted, recordCancelled, type GroundTruth } from './ground-truth.js';
import type { GenerationRequest } from './requests.js';
import { FillerText, ToolArguments } from './text.js';
import { plainSink, type StreamPart, type StreamSink } from './faults-stream.js';
import type { SlicedQueue } from '../util/sliced-queue.js';
import type { LatencyObserver } from './vllm-metrics.js';
import type { Dialect } from './dialects.js';
import { deriveRng, randomHex } from './rng.js';

/** Headers of a streaming response, as vLLM / llama.cpp send them (no proxy buffering). */
const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
} as const;

/**
 * What the writer needs of a request: the response's shape, not the prompt. A stream lives for
 * seconds; holding its prompt's pieces all that time made every young-generation collection copy
 * them (hundreds of strings per request), and those pauses delayed the stamps of arriving requests.
 */
export type ResponseShape = Pick<GenerationRequest, 'kind' | 'model' | 'stream' | 'includeUsage' | 'continuousUsage'>;

/** The response shape of `request`, without its prompt. */
export function responseShape(request: GenerationRequest): ResponseShape {
  return {
    kind: request.kind,
    model: request.model,
    stream: request.stream,
    includeUsage: request.includeUsage,
    continuousUsage: request.continuousUsage,
  };
}

/** Writes one request's response from its engine events. */
export class ResponseWriter implements EngineListener {
  private handle: SeqHandle | undefined;
  private meta: ResponseMeta | undefined;
  private text: FillerText | undefined;
  private truthRecord: GroundTruth | undefined;
  private finished = false;
  /** The client went away before the end: chunks still queued in the outbox are not written. */
  private closed = false;
  private emitted = 0;
  private reasoning = '';
  private content = '';
  /** think-tags: `<think>` has been sent (it opens the first reasoning text). */
  private thinkOpened = false;
  /** think-tags: `</think>\n\n` has been sent (it opens the first answer text). */
  private thinkClosed = false;
  /** Where the stream's bytes go: the socket, or a fault (src/sim/faults-stream.ts). */
  private readonly sink: StreamSink;
  /** When the previous chunk was handed over (ns), for the inter-token histogram. */
  private lastOutputNs = 0;
  /** The tool this response calls instead of answering (see attach), and its arguments so far. */
  private tool: { name: string; id: string; args: ToolArguments } | null = null;
  private toolArguments = '';
  /** chat: the tool call's opening delta (id, name) has been sent. */
  private toolOpened = false;

  constructor(
    private readonly config: SimConfig,
    private readonly clock: SimClock,
    private readonly request: ResponseShape,
    private readonly res: ServerResponse,
    sink?: StreamSink,
    /** Where stream writes are queued (util/sliced-queue.ts); without one, each chunk is written at once. */
    private readonly outbox?: SlicedQueue,
    /** The server's latency histograms (GET /metrics); semantics in src/sim/vllm-metrics.ts. */
    private readonly latency?: LatencyObserver,
    /** The Responses / Messages stream dialect (src/sim/dialects.ts); chat and completions have none. */
    private readonly dialect?: Dialect,
  ) {
    this.sink = sink ?? plainSink(res);
  }

  /**
   * Bind the engine handle and response identity; must happen before the first event (events are
   * never synchronous with submit). With `toolName` the answer is one call to that tool: its
   * content tokens are the call's arguments (src/sim/text.ts ToolArguments).
   */
  attach(handle: SeqHandle, meta: ResponseMeta, truth: GroundTruth, toolName: string | null = null): void {
    this.handle = handle;
    this.meta = meta;
    this.truthRecord = truth;
    this.text = new FillerText(this.config.seed, handle.index);
    if (toolName !== null) {
      const id = 'call_' + randomHex(deriveRng(this.config.seed, 'tool-call-id', handle.index), 12);
      const args = new ToolArguments(this.config.seed, handle.index, this.config.tool_call_arguments_tokens);
      this.tool = { name: toolName, id, args };
      truth.toolCalls = 1;
    }
    this.dialect?.bind({
      id: meta.id,
      model: meta.model,
      created: meta.created,
      rng: deriveRng(this.config.seed, 'item-ids', handle.index),
      prompt: () => ({ promptTokens: truth.promptTokens, cachedTokens: truth.cachedTokens ?? 0 }),
      tool: toolName === null ? null : { name: toolName },
    });
    if (this.request.stream) {
      // Headers go out at once, before queueing and prefill, as on vLLM (Starlette sends the
      // response start before iterating the body): time-to-headers ≠ time-to-first-token.
      this.sink.open(200, SSE_HEADERS);
    }
    this.res.on('close', () => this.onClose());
    // The client may have gone while the body was being read: 'close' has then already fired.
    if (this.res.destroyed || this.res.socket?.destroyed === true) this.onClose();
  }

  /** The client went away before the end: free the engine slot (spec: disconnect frees the slot). */
  private onClose(): void {
    if (this.finished) return;
    this.finished = true;
    this.closed = true;
    this.handle?.cancel();
    recordCancelled(this.truthRecord, this.clock.nowNs());
  }

  onAdmitted(event: AdmittedEvent): void {
    if (this.truthRecord === undefined || this.finished) return;
    recordAdmitted(this.truthRecord, event, this.clock.nowNs());
  }

  onChunk(event: ChunkEvent): void {
    const t = this.truthRecord;
    if (this.finished || t === undefined || this.text === undefined) return;
    t.model.firstOutputNs ??= event.atNs;
    if (event.contentTokens > 0) t.model.firstContentNs ??= event.atNs;
    if (event.finish !== null) {
      t.model.lastChunkNs = event.atNs;
      t.finishReason = event.finish.finishReason;
      t.cachedTokens = event.finish.usage.cachedTokens;
    }
    if (!this.request.stream) {
      // Nothing is written before the end: the latencies are the engine's, as vLLM measures them.
      this.observe(event, this.clock.nowNs());
      const { r, c } = this.produce(event);
      this.accumulate(event, r, c);
      return;
    }
    // The text and the running count are made when the chunk is written, in the stream's order,
    // so a chunk's usage counts exactly the tokens written up to it even if writes fall behind.
    const write = (): void => {
      const { r, c, a } = this.produce(event);
      this.writeStreamChunk(event, r, c, a);
    };
    if (this.outbox === undefined) write();
    else
      this.outbox.run(() => {
        if (!this.closed) write();
      });
  }

  /**
   * The chunk's reasoning and content text, as sent; counts its tokens as emitted. With
   * `reasoning_field: 'think-tags'` the reasoning is folded into the content (see thinkTagged), so
   * `r` is always '' and `c` may hold reasoning text: whether the chunk carries answer tokens is
   * `event.contentTokens > 0`, not `c !== ''`. In a tool call the content tokens are the
   * arguments' fragments `a` (then `c` is '', or the think-tagged reasoning, whose tag is never
   * closed: no answer text follows it).
   */
  private produce(event: ChunkEvent): { r: string; c: string; a: string } {
    const text = this.text as FillerText;
    const r = event.reasoningTokens > 0 ? text.next('reasoning', event.reasoningTokens) : '';
    let c = '';
    let a = '';
    if (event.contentTokens > 0) {
      if (this.tool === null) c = text.next('content', event.contentTokens);
      else {
        a = this.tool.args.next(event.contentTokens);
        this.toolArguments += a;
        (this.truthRecord as GroundTruth).toolArgumentBytes += Buffer.byteLength(a);
      }
    }
    this.emitted += event.reasoningTokens + event.contentTokens;
    if (this.config.reasoning_field === 'think-tags' && this.request.kind === 'chat') {
      return { r: '', c: this.thinkTagged(r, c), a };
    }
    return { r, c, a };
  }

  /**
   * think-tags (a server without a reasoning parser): one content string for the chunk's reasoning
   * `r` and answer `c`, in stream order — `<think>` before the first reasoning text, `</think>\n\n`
   * before the first answer text after reasoning, nothing closing if the response ends while
   * thinking (e.g. max_tokens). The tags are formatting only: they count as no tokens, so usage
   * (completion_tokens, reasoning_tokens) is the same as with a reasoning field.
   */
  private thinkTagged(r: string, c: string): string {
    let out = '';
    if (r !== '') {
      if (!this.thinkOpened) out += '<think>';
      this.thinkOpened = true;
      out += r;
    }
    if (c !== '') {
      if (this.thinkOpened && !this.thinkClosed) {
        out += '</think>\n\n';
        this.thinkClosed = true;
      }
      out += c;
    }
    return out;
  }

  private writeStreamChunk(event: ChunkEvent, r: string, c: string, a: string): void {
    const t = this.truthRecord as GroundTruth;
    const dialect = this.dialect;
    const parts: StreamPart[] =
      dialect === undefined
        ? this.openAiParts(event, r, c, a)
        : dialect.chunk(event.chunkIndex === 0, r, c + a, event.finish);
    // Stamped just before the bytes go to the socket: a client can never see them earlier, so a
    // client's error against this stamp is never negative, and it includes the write itself.
    const now = this.clock.nowNs();
    if (event.finish !== null) {
      this.finished = true;
      this.sink.write(parts, true);
      this.observe(event, now);
    } else if (!this.res.destroyed) {
      this.sink.write(parts, false);
      this.observe(event, now);
    }
    t.firstOutputNs ??= now;
    // Answer tokens, not content bytes: with think-tags the reasoning travels in content too.
    if (event.contentTokens > 0) t.firstContentNs ??= now;
    t.completionTokens = this.emitted;
    t.reasoningTokens += event.reasoningTokens;
    if (event.finish !== null) {
      t.lastChunkNs = now;
      t.status = 'done';
    }
  }

  /** The chat / completions SSE events of one engine chunk (the closing ones included with the finish). */
  private openAiParts(event: ChunkEvent, r: string, c: string, a: string): StreamPart[] {
    const meta = this.meta as ResponseMeta;
    const chat = this.request.kind === 'chat';
    const tokens = event.reasoningTokens + event.contentTokens;
    const usage = this.request.continuousUsage ? usageJson(this.usageSoFar(0)) : undefined;
    const finishReason = event.finish === null ? null : this.chatFinishReason(event.finish.finishReason);
    const inline = this.config.finish_chunk === 'with_last_token' ? finishReason : null;
    const parts: StreamPart[] = [];
    const tool = this.tool;
    if (event.chunkIndex === 0 && chat) {
      const before = this.request.continuousUsage ? usageJson(this.usageSoFar(tokens)) : undefined;
      // A tool call that starts at once opens in the role delta; after reasoning, in its own delta.
      const opens = tool !== null && r === '' && c === '' && a !== '';
      const first: Record<string, unknown> = opens
        ? { role: 'assistant', tool_calls: [this.toolCallOpening()] }
        : { role: 'assistant', content: '' };
      this.toolOpened ||= opens;
      parts.push({ kind: 'role', text: sseData(chatChunk(meta, first, null, before)) });
    }
    if (chat) {
      if (r !== '' || c !== '' || a === '') {
        const delta: Record<string, unknown> = {};
        if (r !== '') delta[this.config.reasoning_field] = r;
        if (c !== '') delta['content'] = c;
        parts.push({ kind: 'token', text: sseData(chatChunk(meta, delta, a === '' ? inline : null, usage)) });
      }
      if (a !== '') {
        if (!this.toolOpened) {
          this.toolOpened = true;
          const opening = { tool_calls: [this.toolCallOpening()] };
          parts.push({ kind: 'frame', text: sseData(chatChunk(meta, opening, null, usage)) });
        }
        const delta = { tool_calls: [{ index: 0, function: { arguments: a } }] };
        parts.push({ kind: 'token', text: sseData(chatChunk(meta, delta, inline, usage)) });
      }
    } else {
      parts.push({ kind: 'token', text: sseData(completionChunk(meta, c, inline, usage)) });
    }
    if (event.finish !== null && finishReason !== null) {
      const reason = finishReason;
      if (inline === null)
        parts.push({
          kind: 'finish',
          text: sseData(chat ? chatChunk(meta, {}, reason, usage) : completionChunk(meta, '', reason, usage)),
        });
      if (this.request.includeUsage) {
        const final = usageJson(event.finish.usage);
        parts.push({
          kind: 'usage',
          text: sseData(chat ? chatChunk(meta, null, null, final) : completionChunk(meta, null, null, final)),
        });
      }
      parts.push({ kind: 'done', text: SSE_DONE });
    }
    return parts;
  }

  /** Chat's finish_reason: a tool call that completed is `tool_calls`. */
  private chatFinishReason(reason: string): string {
    return this.tool !== null && reason === 'stop' && this.request.kind === 'chat' ? 'tool_calls' : reason;
  }

  /** The chat delta entry that opens the tool call (id, name, empty arguments). */
  private toolCallOpening(): Record<string, unknown> {
    const tool = this.tool as { name: string; id: string };
    return { index: 0, id: tool.id, type: 'function', function: { name: tool.name, arguments: '' } };
  }

  /** Feed the latency histograms with a chunk handed over at `now` (measured from the engine's arrival reading). */
  private observe(event: ChunkEvent, now: number): void {
    const latency = this.latency;
    if (latency === undefined || this.handle === undefined) return;
    const arrivalNs = this.handle.arrivalNs;
    if (event.chunkIndex === 0) latency.firstToken((now - arrivalNs) / 1e9);
    else latency.interToken((now - this.lastOutputNs) / 1e9);
    this.lastOutputNs = now;
    if (event.finish !== null) latency.lastToken((now - arrivalNs) / 1e9);
  }

  /** Non-streamed: collect the text (a tool call's arguments are collected by produce). */
  private accumulate(event: ChunkEvent, r: string, c: string): void {
    this.reasoning += r;
    this.content += c;
    const t = this.truthRecord as GroundTruth;
    t.completionTokens = this.emitted;
    t.reasoningTokens += event.reasoningTokens;
    if (event.finish === null) return;
    const meta = this.meta as ResponseMeta;
    const usage = usageJson(event.finish.usage);
    const reason = event.finish.finishReason;
    const answered = event.finish.usage.completionTokens > event.finish.usage.reasoningTokens;
    // think-tags: this.content already holds `<think>`… (produce), and this.reasoning stays ''.
    const thinkTags = this.config.reasoning_field === 'think-tags';
    const tool = this.tool;
    const toolCalls: ChatToolCall[] | undefined =
      tool === null
        ? undefined
        : [{ id: tool.id, type: 'function', function: { name: tool.name, arguments: this.toolArguments } }];
    const body =
      this.dialect !== undefined
        ? this.dialect.body(this.reasoning, tool === null ? this.content : this.toolArguments, event.finish)
        : this.request.kind === 'chat'
          ? chatCompletion(
              meta,
              {
                content: (answered && tool === null) || (thinkTags && this.content !== '') ? this.content : null,
                reasoning: this.reasoning === '' ? null : this.reasoning,
                reasoningField: this.config.reasoning_field,
                ...(toolCalls === undefined ? {} : { toolCalls }),
              },
              this.chatFinishReason(reason),
              usage,
            )
          : textCompletion(meta, this.content, reason, usage);
    this.finished = true;
    const json = JSON.stringify(body);
    const now = this.clock.nowNs();
    this.res.writeHead(200, { 'content-type': 'application/json' });
    this.res.end(json);
    t.firstOutputNs = now;
    if (this.request.kind === 'completion' ? this.content !== '' : answered) t.firstContentNs = now;
    t.lastChunkNs = now;
    t.status = 'done';
  }

  /** Running usage (vLLM continuous_usage_stats), excluding the `notYet` newest tokens. */
  private usageSoFar(notYet: number): {
    promptTokens: number;
    cachedTokens: number;
    completionTokens: number;
    reasoningTokens: number;
  } {
    const t = this.truthRecord as GroundTruth;
    const emitted = this.emitted - notYet;
    return {
      promptTokens: t.promptTokens,
      cachedTokens: t.cachedTokens ?? 0,
      completionTokens: emitted,
      reasoningTokens: Math.min(emitted, this.handle?.plan.reasoningTokens ?? 0),
    };
  }
}
