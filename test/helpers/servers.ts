/**
 * Real-socket test servers for the client tests (architecture rule 9: no HTTP mocking).
 * Everything listens on 127.0.0.1 port 0 and is closed by the test that started it.
 */
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A running server: its base URL, how many TCP connections it accepted, and how to stop it. */
export interface TestServer {
  url: string;
  port: number;
  connections: () => number;
  close: () => Promise<void>;
}

/** One HTTP request as the raw server read it. */
export interface RawRequest {
  head: string;
  body: string;
}

/** A node:http server running `handler`. */
export async function httpServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const server = createHttpServer(handler);
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connections: () => connections,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Forwards one request to `upstream` (its origin; the path is the request's own) as it streams,
 * and its answer back: status, headers and body. A failed upstream exchange destroys the response.
 */
export function forwardRequest(upstream: URL, req: IncomingMessage, res: ServerResponse): void {
  const forward = httpRequest(
    { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  forward.on('error', () => res.destroy());
  req.pipe(forward);
}

/**
 * A raw TCP server that parses just enough HTTP/1.1 (head + Content-Length body) to hand each request
 * to `handler`, which then writes whatever bytes the test needs, or resets / closes the socket.
 */
export async function rawServer(handler: (socket: Socket, req: RawRequest) => void): Promise<TestServer> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createNetServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffer = Buffer.alloc(0);
    socket.on('data', (data: Buffer) => {
      buffer = Buffer.concat([buffer, data]);
      for (;;) {
        const headEnd = buffer.indexOf('\r\n\r\n');
        if (headEnd === -1) return;
        const head = buffer.subarray(0, headEnd).toString('latin1');
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? '0');
        if (buffer.length < headEnd + 4 + length) return;
        const body = buffer.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
        buffer = buffer.subarray(headEnd + 4 + length);
        handler(socket, { head, body });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Response head for a chunked SSE response. */
export const SSE_HEAD =
  'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nX-Accel-Buffering: no\r\nKeep-Alive: timeout=5, max=100\r\n\r\n';

/** One HTTP/1.1 chunk of chunked transfer encoding. */
export function httpChunk(data: string | Uint8Array): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
}

/** The terminating zero-length chunk. */
export const LAST_CHUNK = '0\r\n\r\n';

/** One SSE event carrying an OpenAI chat-completion chunk with one choice. */
export function deltaEvent(delta: unknown, extra: Record<string, unknown> = {}, eol = '\n'): string {
  const chunk = {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: null }],
    ...extra,
  };
  return `data: ${JSON.stringify(chunk)}${eol}${eol}`;
}

/** An SSE event with an arbitrary JSON payload. */
export function dataEvent(payload: unknown, eol = '\n'): string {
  return `data: ${JSON.stringify(payload)}${eol}${eol}`;
}

/** The final llama.cpp-style usage chunk: `choices: []` with `usage` and `timings`. */
export function usageEvent(usage: Record<string, unknown>): string {
  return dataEvent({
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    choices: [],
    usage,
    timings: { prompt_n: 5, prompt_ms: 1.5, predicted_n: 3, predicted_ms: 9.1 },
  });
}

export const DONE_EVENT = 'data: [DONE]\n\n';

/** Resolves after `ms` milliseconds; the timer does not keep the test process alive by itself. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** A step of a scripted response: bytes to send as one HTTP chunk, or a pause in milliseconds. */
export type Step = string | Uint8Array | number;

/**
 * Writes a chunked SSE response on a raw socket: the head, then each step (text or bytes as one HTTP
 * chunk, a number as a pause), then (unless `end` is false) the terminating chunk.
 */
export async function writeSse(socket: Socket, steps: readonly Step[], end = true): Promise<void> {
  socket.setNoDelay(true);
  socket.write(SSE_HEAD);
  for (const step of steps) {
    if (typeof step === 'number') {
      await sleep(step);
      continue;
    }
    if (socket.destroyed) return;
    socket.write(httpChunk(step));
  }
  if (end && !socket.destroyed) socket.write(LAST_CHUNK);
}
