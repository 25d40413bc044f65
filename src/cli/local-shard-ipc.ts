/**
 * The start of a shard process that `run --shards N` started (cli/commands/run-local-shards.ts):
 * over Node's IPC channel it says when it is ready, and its parent answers, once every shard is,
 * with one start instant for all (epoch ms on the wall clock they share).
 */
import { InterruptedError } from '../util/errors.js';

/** The message a local shard sends when it is ready to start, and the one it gets back. */
export type LocalShardMessage = { type: 'ready' } | { type: 'start'; atMs: number };

/** Set in a child's environment: it waits for its parent's start instant over IPC. */
export const LOCAL_SHARD_ENV = 'SERVEBENCH_LOCAL_SHARD';

/** A shard started by `run --shards N`: says it is ready, and gets the common start instant back. */
export function startFromParent(signal: AbortSignal | undefined): Promise<number> {
  return new Promise<number>((done, fail) => {
    const onMessage = (message: LocalShardMessage): void => {
      if (message.type !== 'start') return;
      cleanup();
      // The channel stays open for the parent's signals, but must not keep this process alive.
      process.channel?.unref();
      done(message.atMs);
    };
    const onAbort = (): void => {
      cleanup();
      fail(new InterruptedError());
    };
    const cleanup = (): void => {
      process.off('message', onMessage);
      signal?.removeEventListener('abort', onAbort);
    };
    process.on('message', onMessage);
    signal?.addEventListener('abort', onAbort, { once: true });
    process.send?.({ type: 'ready' } satisfies LocalShardMessage);
  });
}
