/**
 * A transparent HTTP proxy in front of llama-server that keeps what servebench throws away.
 *
 * servebench keeps a stream's raw `usage` but not llama.cpp's `timings` object (prompt_ms,
 * predicted_per_second, …), which rides on the final chunk. To compare the client's figures with
 * the server's own clock per request, the CLI is pointed at this proxy: every upstream body chunk
 * is written to the client the moment it arrives (one write per chunk, no buffering, Nagle off),
 * and a copy is parsed after the response ends. Records are matched to result rows by the stream
 * `id`, which servebench writes as `response_id`.
 *
 * A proxy can only delay bytes, never advance them, and on 127.0.0.1 it adds well under a
 * millisecond per chunk (the same delay to the first and the last chunk, so generation times are
 * unaffected); the upstream side opens one connection per request, about 0.1 ms on loopback. Tests that check a lower bound (TTFO ≥ prompt_ms) also check an upper bound, so
 * the proxy could not hide a client that stamps too late either.
 */
import { Agent, createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What one proxied chat-completion stream contained. */
export interface TapRecord {
  method: string;
  path: string;
  status: number;
  /** The stream's `id` (first one seen). */
  id: string | null;
  /** llama.cpp's `timings` object (last one seen). */
  timings: Record<string, number> | null;
  /** The last `usage` object seen. */
  usage: Record<string, unknown> | null;
  /** Content deltas with non-empty text, before any error event. */
  contentDeltas: number;
  /** The `error` object of an in-stream error event, if one came. */
  streamError: { code?: number; message?: string; type?: string } | null;
  /** Whether `data: [DONE]` arrived. */
  done: boolean;
  /** The whole body when it is not an event stream (bounded), e.g. an HTTP 400's JSON. */
  plainBody: string | null;
  /** The request body as sent by the client. */
  requestBody: string;
  /** Whether the upstream body ended normally (false: the server dropped the connection mid-body). */
  complete: boolean;
}

export interface TapProxy {
  baseUrl: string;
  records: TapRecord[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
]);

function forwardHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(key.toLowerCase())) out[key] = value;
  }
  return out;
}

/** Starts the proxy on 127.0.0.1 (a free port) in front of `upstreamOrigin` (`http://127.0.0.1:PORT`). */
export async function startTapProxy(upstreamOrigin: string): Promise<TapProxy> {
  const upstream = new URL(upstreamOrigin);
  // One upstream connection per request (as the reference harness does): llama-server at this
  // commit closes the connection after every streamed response although it announces keep-alive,
  // and a proxy that reused those sockets would add failures of its own.
  const agent = new Agent({ keepAlive: false, maxSockets: 256 });
  const records: TapRecord[] = [];
  const server: Server = createServer({ noDelay: true }, (req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const payload = Buffer.concat(body);
      const headers = forwardHeaders(req.headers);
      headers['content-length'] = String(payload.length);
      const up = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent },
        (upRes) => {
          upRes.socket.setNoDelay(true);
          res.writeHead(upRes.statusCode ?? 502, forwardHeaders(upRes.headers));
          res.flushHeaders();
          const copy: Buffer[] = [];
          let ended = false;
          upRes.on('data', (chunk: Buffer) => {
            res.write(chunk);
            copy.push(chunk);
          });
          upRes.on('end', () => {
            ended = true;
            res.end();
          });
          upRes.on('error', () => undefined); // reported through 'close' below
          upRes.on('close', () => {
            // A server that drops the connection mid-body is passed on as such: the client sees the same break.
            if (!ended) res.destroy();
            if (req.method === 'POST' && (req.url ?? '').includes('/chat/completions')) {
              const record = parseBody(
                req.method,
                req.url ?? '',
                upRes.statusCode ?? 0,
                String(upRes.headers['content-type'] ?? ''),
                Buffer.concat(copy).toString('utf8'),
              );
              record.requestBody = payload.toString('utf8');
              record.complete = ended;
              records.push(record);
            }
          });
        },
      );
      up.on('error', (error) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`tap proxy: ${error.message}`);
      });
      up.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    records,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

function parseBody(method: string, path: string, status: number, contentType: string, text: string): TapRecord {
  const record: TapRecord = {
    method,
    path,
    status,
    id: null,
    timings: null,
    usage: null,
    contentDeltas: 0,
    streamError: null,
    done: false,
    plainBody: null,
    requestBody: '',
    complete: false,
  };
  if (!contentType.includes('text/event-stream')) {
    record.plainBody = text.slice(0, 64 * 1024);
    return record;
  }
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '[DONE]') {
      record.done = true;
      continue;
    }
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(data) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (record.id === null && typeof event['id'] === 'string') record.id = event['id'];
    if (typeof event['timings'] === 'object' && event['timings'] !== null)
      record.timings = event['timings'] as Record<string, number>;
    if (typeof event['usage'] === 'object' && event['usage'] !== null)
      record.usage = event['usage'] as Record<string, unknown>;
    if (typeof event['error'] === 'object' && event['error'] !== null) {
      record.streamError = event['error'];
      continue;
    }
    const choices = Array.isArray(event['choices']) ? (event['choices'] as Record<string, unknown>[]) : [];
    for (const choice of choices) {
      const delta = (choice['delta'] ?? {}) as Record<string, unknown>;
      if (typeof delta['content'] === 'string' && delta['content'] !== '' && record.streamError === null)
        record.contentDeltas++;
    }
  }
  return record;
}
