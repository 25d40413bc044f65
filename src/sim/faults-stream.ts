/**
 * Where a streamed response's bytes go: straight to the socket, or through a fault that delays,
 * corrupts, compresses or cuts them (src/sim/faults.ts lists the faults). The response writer
 * hands over each engine chunk as typed parts, so a fault can drop the usage chunk or `[DONE]`,
 * or act after exactly N token chunks.
 */
import type { ServerResponse } from 'node:http';
import { createGzip, type Gzip } from 'node:zlib';
import type { Fault } from './faults.js';

/**
 * What one SSE event of the stream is. `frame` is structure that is neither a token nor the end
 * (a Responses item or an Anthropic content block opening mid-stream): like `role`, it never
 * triggers a positional fault.
 */
export type StreamPartKind = 'role' | 'frame' | 'token' | 'finish' | 'usage' | 'done';

/** One SSE event, ready to write (`data: …\n\n`). */
export interface StreamPart {
  readonly kind: StreamPartKind;
  readonly text: string;
  /**
   * The same event without its usage, for `missing_usage` where usage rides on an event that
   * must still be sent (Anthropic's message_delta, the Responses API's final event).
   */
  readonly withoutUsage?: string;
}

/** The fault events of one stream dialect (each a complete SSE event unless said otherwise). */
export interface FaultEvents {
  /** The server's in-stream error event. */
  streamError(): string;
  /** An event whose JSON is cut short. */
  malformed(): string;
  /** An event whose data is JSON but not an object. */
  nonObject(): string;
  /** A text delta carrying bytes that are not UTF-8. */
  invalidUtf8(): Buffer;
  /** One valid event whose data line is exactly `bytes` bytes (terminator excluded). */
  hugeLine(bytes: number): Buffer;
  /**
   * Rewrites each event the fault lets through, just before it is queued: the Responses API
   * renumbers `sequence_number` so the events actually sent (fault events included) count up
   * without gaps.
   */
  rewrite?(text: string): string;
}

/** The byte side of a streamed response. */
export interface StreamSink {
  /** Writes the response head. */
  open(status: number, headers: Readonly<Record<string, string>>): void;
  /** Writes the parts of one engine chunk, in order; `final` ends the response after them. */
  write(parts: readonly StreamPart[], final: boolean): void;
}

/** No fault: every engine chunk is one write, the last one ends the response. */
export function plainSink(res: ServerResponse): StreamSink {
  return {
    open(status, headers) {
      res.writeHead(status, headers);
      res.flushHeaders();
    },
    write(parts, final) {
      let out = '';
      for (const part of parts) out += part.text;
      if (final) res.end(out);
      else if (!res.destroyed) res.write(out);
      flushNow(res);
    },
  };
}

/**
 * Node corks a chunked response's socket on each write and uncorks it on the next tick, so the
 * bytes of every stream written in one engine step would leave together after the whole step —
 * later than the ground-truth stamp taken after the write. Uncorking here hands them to the
 * kernel now, so the stamp is when the bytes really left.
 */
function flushNow(res: ServerResponse): void {
  const socket = res.socket;
  if (socket !== null && !socket.destroyed) while (socket.writableCorked > 0) socket.uncork();
}

/** The in-stream error llama.cpp sends before closing (docs/testing.md#real-engine-suite), with a simulated message. */
const STREAM_ERROR_EVENT =
  'data: {"error":{"code":500,"message":"simulated stream failure: the model produced output that does not match the expected format","type":"server_error"}}\n\n';
/** A `data:` event whose JSON is cut short. */
const MALFORMED_EVENT =
  'data: {"id":"chatcmpl-fault","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"cut\n\n';
/** A `data:` event that is JSON but not an object. */
const NON_OBJECT_EVENT = 'data: ["not","an","object"]\n\n';
/** A content delta whose text bytes are not UTF-8 (0xC3 0x28 is an invalid two-byte sequence; 0xFF never occurs in UTF-8). */
const INVALID_UTF8_EVENT = Buffer.concat([
  Buffer.from('data: {"choices":[{"index":0,"delta":{"content":"bad '),
  Buffer.from([0xc3, 0x28, 0xff]),
  Buffer.from('"},"finish_reason":null}]}\n\n'),
]);

/** One valid `data:` line of exactly `bytes` bytes (terminator excluded) carrying a long content delta. */
export function hugeLineEvent(bytes: number): Buffer {
  const head = 'data: {"choices":[{"index":0,"delta":{"content":"';
  const tail = '"},"finish_reason":null}]}';
  const fill = Math.max(1, bytes - head.length - tail.length);
  return Buffer.concat([Buffer.from(head), Buffer.alloc(fill, 0x78), Buffer.from(`${tail}\n\n`)]);
}

/** The chat / completions dialect (llama.cpp's in-stream error). */
export const OPENAI_FAULT_EVENTS: FaultEvents = {
  streamError: () => STREAM_ERROR_EVENT,
  malformed: () => MALFORMED_EVENT,
  nonObject: () => NON_OBJECT_EVENT,
  invalidUtf8: () => INVALID_UTF8_EVENT,
  hugeLine: hugeLineEvent,
};

/** Delay before a reset or close, so the bytes written just before it reach the client first. */
const CUT_DELAY_MS = 30;

type Ending = 'end' | 'reset' | 'close';

/** Positional faults act when the stream reaches their `after_chunks` token chunks. */
const POSITIONAL = new Set([
  'stall_mid',
  'reset_mid',
  'close_mid',
  'malformed_json',
  'non_object',
  'stream_error',
  'stream_error_cut',
  'huge_line',
  'invalid_utf8',
]);

/**
 * A sink that injects one stream fault. Bytes go through a queue so that stalls and trickling
 * delay them without blocking the engine (tokens keep being generated meanwhile, as on a server
 * whose network path stalls); endings (end, reset, close) happen once the queue has drained.
 */
export class FaultSink implements StreamSink {
  readonly #res: ServerResponse;
  readonly #fault: Fault;
  readonly #after: number;
  #tokens = 0;
  #fired = false;
  /** No more input is accepted (the fault ended the stream, or the final chunk came). */
  #closedInput = false;
  #ending: Ending | null = null;
  #queue: Buffer[] = [];
  #holdUntilMs = 0;
  #timer: NodeJS.Timeout | null = null;
  #gzip: Gzip | null = null;
  #done = false;

  readonly #events: FaultEvents;

  constructor(res: ServerResponse, fault: Fault, events: FaultEvents = OPENAI_FAULT_EVENTS) {
    this.#res = res;
    this.#fault = fault;
    this.#events = events;
    this.#after = fault.args['after_chunks'] ?? (fault.name === 'huge_line' ? 1 : 0);
    res.on('close', () => this.#stop());
  }

  open(status: number, headers: Readonly<Record<string, string>>): void {
    const res = this.#res;
    if (this.#fault.name === 'gzip') {
      res.writeHead(status, { ...headers, 'content-encoding': 'gzip' });
      const gzip = createGzip();
      gzip.on('error', () => res.destroy());
      gzip.pipe(res);
      this.#gzip = gzip;
    } else {
      res.writeHead(status, headers);
    }
    res.flushHeaders();
    if (this.#fault.name === 'stall_first')
      this.#holdUntilMs = performance.now() + (this.#fault.args['stall_s'] ?? 0) * 1000;
  }

  write(parts: readonly StreamPart[], final: boolean): void {
    for (const part of parts) {
      if (this.#closedInput) return;
      const noUsage = this.#fault.name === 'missing_usage';
      if (noUsage && part.kind === 'usage' && part.withoutUsage === undefined) continue;
      if (part.kind === 'done' && this.#fault.name === 'missing_done') continue;
      const reached =
        part.kind === 'token' ? this.#tokens >= this.#after : part.kind !== 'role' && part.kind !== 'frame';
      if (!this.#fired && reached && POSITIONAL.has(this.#fault.name)) {
        this.#fired = true;
        this.#fire();
        if (this.#closedInput) return;
      }
      if (part.kind === 'token') this.#tokens++;
      const text = noUsage && part.withoutUsage !== undefined ? part.withoutUsage : part.text;
      this.#enqueue(Buffer.from(this.#events.rewrite?.(text) ?? text, 'utf8'));
    }
    if (final) this.#end('end');
  }

  /** The positional fault happens here, before the next event. */
  #fire(): void {
    const args = this.#fault.args;
    switch (this.#fault.name) {
      case 'stall_mid':
        this.#holdUntilMs = performance.now() + (args['stall_s'] ?? 0) * 1000;
        return;
      case 'reset_mid':
        return this.#end('reset');
      case 'close_mid':
        return this.#end('close');
      case 'malformed_json':
        this.#enqueue(Buffer.from(this.#events.malformed()));
        return this.#end('end');
      case 'non_object':
        this.#enqueue(Buffer.from(this.#events.nonObject()));
        return this.#end('end');
      case 'stream_error':
        this.#enqueue(Buffer.from(this.#events.streamError()));
        return this.#end('end');
      case 'stream_error_cut':
        // The error line alone (no blank line), then FIN without the chunked terminator.
        this.#enqueue(Buffer.from(this.#events.streamError().trimEnd()));
        return this.#end('close');
      case 'huge_line':
        return this.#enqueue(this.#events.hugeLine(args['bytes'] ?? 10_000_000));
      case 'invalid_utf8':
        return this.#enqueue(this.#events.invalidUtf8());
      default:
        return;
    }
  }

  #enqueue(bytes: Buffer): void {
    if (this.#done) return;
    this.#queue.push(bytes);
    this.#pump();
  }

  #end(ending: Ending): void {
    if (this.#closedInput) return;
    this.#closedInput = true;
    this.#ending = ending;
    this.#pump();
  }

  /** Writes what the fault allows now and schedules the rest. */
  #pump(): void {
    if (this.#done || this.#timer !== null) return;
    if (this.#res.destroyed) return this.#stop();
    const wait = this.#holdUntilMs - performance.now();
    if (wait > 0) {
      this.#timer = setTimeout(() => {
        this.#timer = null;
        this.#pump();
      }, Math.ceil(wait));
      return;
    }
    if (this.#fault.name === 'trickle' && this.#queue.length > 0) {
      const head = this.#queue[0] as Buffer;
      this.#out(head.subarray(0, 1));
      if (head.length > 1) this.#queue[0] = head.subarray(1);
      else this.#queue.shift();
      this.#timer = setTimeout(() => {
        this.#timer = null;
        this.#pump();
      }, this.#fault.args['delay_ms'] ?? 0);
      return;
    }
    if (this.#queue.length > 0) {
      const all = this.#queue.length === 1 ? (this.#queue[0] as Buffer) : Buffer.concat(this.#queue);
      this.#queue = [];
      this.#out(all);
    }
    if (this.#ending !== null) this.#finish(this.#ending);
  }

  #out(bytes: Buffer): void {
    if (this.#gzip !== null) {
      this.#gzip.write(bytes);
      this.#gzip.flush();
    } else {
      this.#res.write(bytes);
    }
  }

  #finish(ending: Ending): void {
    this.#done = true;
    if (ending === 'end') {
      if (this.#gzip !== null) this.#gzip.end();
      else this.#res.end();
      return;
    }
    const socket = this.#res.socket;
    setTimeout(() => {
      if (socket === null || socket.destroyed) return;
      if (ending === 'reset') socket.resetAndDestroy();
      else socket.destroy();
    }, CUT_DELAY_MS);
  }

  /** The response is gone (client left, or the server closed): drop everything pending. */
  #stop(): void {
    this.#done = true;
    this.#queue = [];
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#gzip?.destroy();
  }
}
