/** A thread of merge-shards.ts generateShards: writes each shard file it is handed, whole. */
import { parentPort, workerData } from 'node:worker_threads';
import { shardFile, writeShard, type ShardDone, type ShardJob, type ShardSet } from './merge-shards.js';

if (parentPort === null) throw new Error('merge-shard-worker.js runs as a worker thread');
const port = parentPort;
const { dir, set } = workerData as { dir: string; set: ShardSet };

port.on('message', (job: ShardJob) => {
  const done: ShardDone = { index: job.index, records: writeShard(shardFile(dir, job.index), set, job.index) };
  port.postMessage(done);
});
