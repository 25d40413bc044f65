/**
 * A byte-for-byte TCP forwarder that counts the chat-completion requests a client writes, for the
 * check that servebench resends exactly the requests it says it resent (`connection_retries`).
 *
 * Unlike the HTTP tap proxy (tap-proxy.ts), it keeps the server's connection behaviour visible to
 * the client: each client connection gets its own upstream connection, and when the server ends
 * or drops it the client's side is ended too. The client's side stays readable until the client
 * closes it, so a request written on a connection the server had already closed (a stale
 * keep-alive socket) still arrives here and is counted, though it is never forwarded.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface TcpCounter {
  baseUrl: string;
  /** Request heads `POST /v1/chat/completions` the client has written so far, delivered or not. */
  chatRequests(): number;
  close(): Promise<void>;
}

const HEAD = Buffer.from('POST /v1/chat/completions ');

/** Occurrences of `needle` in `haystack`. */
function occurrences(haystack: Buffer, needle: Buffer): number {
  let n = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** Starts the counter on 127.0.0.1 (a free port) in front of `upstreamOrigin` (`http://127.0.0.1:PORT`). */
export async function startTcpCounter(upstreamOrigin: string): Promise<TcpCounter> {
  const upstream = new URL(upstreamOrigin);
  const sockets = new Set<Socket>();
  let heads = 0;
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
    const up = connect({ host: upstream.hostname, port: Number(upstream.port), noDelay: true });
    for (const s of [client, up]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined); // a reset is passed on through 'close'
    }
    // The last HEAD.length − 1 bytes of the previous chunk: a head split across two reads is counted once.
    let tail = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      const text = Buffer.concat([tail, chunk]);
      heads += occurrences(text, HEAD);
      tail = text.subarray(Math.max(0, text.length - (HEAD.length - 1)));
      if (up.writable) up.write(chunk);
    });
    up.on('data', (chunk: Buffer) => {
      if (client.writable) client.write(chunk);
    });
    // The server closed (FIN or reset): end the client's side after what was already passed on,
    // and keep reading it, so late writes are still counted.
    up.on('close', () => client.end());
    client.on('end', () => up.end());
    client.on('close', () => up.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    chatRequests: () => heads,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
