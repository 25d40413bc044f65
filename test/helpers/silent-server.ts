/**
 * A server that accepts connections and never answers the requests it is told to hang on (every
 * request by default); any other request gets an empty `404`. Real sockets on 127.0.0.1, port 0.
 */
import { createServer, type Socket } from 'node:net';
import { once } from 'node:events';

export interface SilentServer {
  /** Base URL with `/v1`, as a client is given it. */
  url: string;
  /** Resolves once a request line matching `pattern` (e.g. `/^GET \/v1\/models /`) has arrived. */
  saw(pattern: RegExp): Promise<string>;
  close(): Promise<void>;
}

/** Starts the server; `hang` picks the request lines never answered (default: all of them). */
export async function startSilentServer(hang: RegExp = /./): Promise<SilentServer> {
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.setEncoding('latin1').on('data', (text: string) => {
      buffered += text;
      // Request lines only (a probe's body never starts with a method and a path).
      for (let end = buffered.indexOf('\r\n\r\n'); end >= 0; end = buffered.indexOf('\r\n\r\n')) {
        const head = buffered.slice(0, end);
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) break;
        buffered = buffered.slice(end + 4 + length);
        const line = head.split('\r\n')[0] ?? '';
        lines.push(line);
        for (const waiter of waiters.filter((w) => w.pattern.test(line))) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
        if (!hang.test(line)) socket.write('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    saw: (pattern) => {
      const seen = lines.find((line) => pattern.test(line));
      return seen !== undefined ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ pattern, resolve }));
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
