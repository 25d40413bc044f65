/**
 * The record files of one merge, read on worker threads (one per core, at most one per file):
 * reading, checksums and (for NDJSON files) JSON parsing are what a merge's reading costs, and
 * they run in parallel; this thread only decodes the blocks each thread hands back.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { InputFileError } from '../../util/errors.js';
import type { FromReader, ToReader } from './read-protocol.js';
import { storeOf, type ReadRecordOptions, type RecordFile } from './read-record-file.js';

/** The thread's script, beside this file in whatever directory the build went to. */
const READER_SCRIPT = new URL('./record-file-worker.js', import.meta.url);

/**
 * Reads `files` (either era each) on worker threads; the results are in the order of `files`.
 * @throws InputFileError for the first file that cannot be read (one line: the file, the problem).
 */
export async function readRecordFiles(
  files: readonly string[],
  options: ReadRecordOptions = {},
  threads: number = availableParallelism(),
): Promise<RecordFile[]> {
  if (files.length === 0) return [];
  const count = Math.max(1, Math.min(threads, files.length));
  const results = new Array<RecordFile>(files.length);
  let next = 0;
  const workers: Worker[] = [];
  try {
    await Promise.all(
      Array.from({ length: count }, () => {
        const worker = new Worker(READER_SCRIPT);
        workers.push(worker);
        return new Promise<void>((resolve, reject) => {
          let current = -1;
          const send = (): void => {
            if (next >= files.length) return resolve();
            current = next++;
            const job: ToReader = {
              id: current,
              file: files[current]!,
              tornTail: options.tornTail ?? false,
              arenasOnDisk: options.arenasOnDisk ?? false,
            };
            worker.postMessage(job);
          };
          worker.on('message', (reply: FromReader) => {
            if (!reply.ok) return reject(new InputFileError(reply.file, reply.problem));
            try {
              const split = {
                ...reply,
                blocks: reply.blocks.map((b) => ({
                  bytes: new Uint8Array(b.buffer, b.start, b.length),
                  offset: b.offset,
                  position: null,
                  arena: b.arena,
                })),
              };
              results[reply.id] = storeOf(files[reply.id]!, split, reply.identity);
            } catch (error) {
              return reject(error instanceof Error ? error : new Error(String(error)));
            }
            send();
          });
          const died = (why: string): void =>
            reject(new InputFileError(files[Math.max(current, 0)]!, `the thread reading it failed (${why})`));
          worker.on('error', (error) => died(error.message.split('\n')[0] ?? 'error'));
          worker.on('exit', (code) => died(`exit ${code}`));
          send();
        });
      }),
    );
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  return results;
}
