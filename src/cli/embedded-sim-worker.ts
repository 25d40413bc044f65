/**
 * The embedded simulator's thread (loaded by embedded-sim.ts as a worker thread): starts the
 * simulator with the resolved configuration it is given, reports its URL, and closes it on request.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startSim, type SimConfigInput } from '../sim/index.js';

/** Messages to the main thread. */
export type FromEmbeddedSim =
  { type: 'ready'; url: string; model: string } | { type: 'failed'; message: string } | { type: 'closed' };

if (parentPort === null) throw new Error('embedded-sim-worker.js runs as a worker thread of servebench run');
const port = parentPort;
const post = (message: FromEmbeddedSim): void => port.postMessage(message);

try {
  const sim = await startSim(workerData as SimConfigInput);
  port.on('message', (message: unknown) => {
    if (message !== 'close') return;
    void sim.close().finally(() => {
      post({ type: 'closed' });
      port.close();
    });
  });
  post({ type: 'ready', url: sim.url, model: sim.config.model });
} catch (error) {
  post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
}
