/**
 * Which request on its socket a request was: the first on a fresh connection, or a later one on
 * a kept-alive socket. The stale-connection rule (stale-connection.ts) resends transparently only
 * on a reused socket, and undici does not tell a dispatch handler which socket it was written on.
 *
 * Its diagnostics channel does: `undici:client:sendHeaders` (public API) carries the socket of
 * every request undici writes, published synchronously in the same call in which undici has just
 * run the handler's `onRequestStart` (client-h1 `writeH1`: `onConnect`, then the header, then the
 * message, then the write). So a handler announces itself in `onRequestStart` with
 * {@link awaitSocketCount}, and the next message, which is its own, tells it the count.
 * With one request at a time per socket (`pipelining: 1`), count ≥ 2 means an earlier response on
 * this socket had ended before this request was written.
 */
import { subscribe } from 'node:diagnostics_channel';

/** Requests written per socket so far (sockets are keys only while they live). */
const written = new WeakMap<object, number>();
/** The handler whose `onRequestStart` just ran and whose write is being published next. */
let awaiting: ((count: number) => void) | null = null;

subscribe('undici:client:sendHeaders', (message) => {
  const socket = (message as { socket?: unknown }).socket;
  if (typeof socket !== 'object' || socket === null) return;
  const count = (written.get(socket) ?? 0) + 1;
  written.set(socket, count);
  const receive = awaiting;
  awaiting = null;
  receive?.(count);
});

/**
 * Call from a dispatch handler's `onRequestStart` (and only when the request is going to be
 * written): `receive` gets how many requests, this one included, its socket has carried. Should
 * the write not follow in the same turn after all, the wait is dropped rather than handed to
 * someone else's message.
 */
export function awaitSocketCount(receive: (count: number) => void): void {
  awaiting = receive;
  queueMicrotask(() => {
    if (awaiting === receive) awaiting = null;
  });
}
