/**
 * Writes the records file (`--records FILE.parquet`): one Parquet row per request, columns from
 * records-schema.ts, a row group at a time. Parquet comes from `parquet-wasm` (the Rust `parquet`
 * crate of the Apache Arrow project, compiled to WebAssembly) fed Arrow record batches built with
 * `apache-arrow`; both are loaded here only, when a records file is written, so no other command
 * pays for them.
 *
 * Memory holds one row group (its columns and its encoded bytes), never the whole file: the
 * encoder streams each finished row group out, and `add` waits while one is being encoded. The
 * file appears atomically, as a result does (io.ts): a temp file beside the target, fsync,
 * rename; abandoned or failed, the temp file is removed and the target left as it was.
 */
import { createHash } from 'node:crypto';
import type { RecordBatch as WasmBatch } from 'parquet-wasm';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { FailureRecord, WrittenRow } from '../metrics/types.js';
import { checkWriteTargets } from '../util/write-targets.js';
import { syncDirectory, tempPathBeside, writeAll } from './io.js';
import { arrowType, columnBuffer, type ColumnBuffer } from './records-columns.js';
import { RECORDS_COLUMNS, takeValue, type RecordsEntry } from './records-schema.js';
import { BatchChannel } from './batch-channel.js';

/** Rows per row group unless told: small enough to hold, large enough for DuckDB to scan fast. */
const DEFAULT_ROW_GROUP_ROWS = 65_536;

/** What was written: the label's facts (servebench.records_file). */
export interface RecordsFileFacts {
  rows: number;
  bytes: number;
  /** Hex SHA-256 of the file's bytes. */
  sha256: string;
}

export interface RecordsWriter {
  /** One request's row or failure, in request_index order, with its chunk offsets (seconds since its start). */
  add(record: WrittenRow | FailureRecord, chunkOffsetsS?: ArrayLike<number>): Promise<void>;
  /** Write the last row group and the footer, then put the file in place. */
  finish(): Promise<RecordsFileFacts>;
  /** Stop and remove what was written; the target is left as it was. */
  abandon(): Promise<void>;
}

/** A row of a result (as opposed to a failure): only rows have a TTFT. */
function isRow(record: WrittenRow | FailureRecord): record is WrittenRow {
  return 'ttft_ms' in record;
}

/**
 * Open `file` for writing (a temp file beside it until `finish`).
 * @throws UsageError when `file` cannot be a target (a directory, a link, a missing parent).
 */
export async function openRecordsWriter(file: string, options: { rowGroupRows?: number } = {}): Promise<RecordsWriter> {
  const target = path.resolve(file);
  checkWriteTargets([{ flag: '--records', path: target, mode: 'replace' }]);
  const rowGroupRows = options.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS;
  const [arrow, parquet] = await Promise.all([import('apache-arrow'), import('parquet-wasm')]);
  const fields = RECORDS_COLUMNS.map((c) => new arrow.Field(c.name, arrowType(arrow, c), true));
  const schema = new arrow.Schema(fields);
  const struct = new arrow.Struct(fields);
  const buffers: ColumnBuffer[] = RECORDS_COLUMNS.map((c) => columnBuffer(arrow, c, rowGroupRows));
  const temp = tempPathBeside(target);
  const handle: FileHandle = await open(temp, 'wx', 0o666);
  const hash = createHash('sha256');
  let bytes = 0;
  let rows = 0;
  let inGroup = 0;
  let closed = false;

  const channel = new BatchChannel<WasmBatch>();
  const batches = new ReadableStream(
    {
      pull: async (controller) => {
        const batch = await channel.take();
        if (batch === null) controller.close();
        else controller.enqueue(batch);
      },
    },
    { highWaterMark: 0 },
  );
  const properties = new parquet.WriterPropertiesBuilder()
    .setMaxRowGroupSize(rowGroupRows)
    .setCompression(parquet.Compression.SNAPPY)
    .setCreatedBy('servebench')
    .build();
  // Not awaited here: the encoder waits for the first batch (it carries the schema) before it answers.
  const pump = (async () => {
    const encoded = await parquet.transformParquetStream(batches, properties);
    for await (const chunk of encoded as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      bytes += chunk.length;
      await writeAll(handle, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
  })();
  // A failed pump (a full disk) ends the channel too, so a waiting `add` sees the error.
  pump.catch((error: unknown) => channel.fail(error));

  /** The row group so far to the encoder; an empty file still gets one (empty) batch, which carries the schema. */
  async function flush(): Promise<void> {
    if (inGroup === 0 && rows > 0) return;
    const children = buffers.map((b) => b.data(inGroup));
    const batch = new arrow.RecordBatch(schema, arrow.makeData({ type: struct, length: inGroup, children }));
    const ipc = arrow.tableToIPC(new arrow.Table([batch]), 'stream');
    for (const b of buffers) b.reset();
    inGroup = 0;
    const table = parquet.Table.fromIPCStream(ipc);
    const wasmBatch = table.recordBatch(0);
    table.free();
    if (wasmBatch !== undefined) await channel.put(wasmBatch);
  }

  async function discard(): Promise<void> {
    closed = true;
    channel.fail(new Error('records file abandoned'));
    await pump.catch(() => undefined);
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
  }

  return {
    async add(record, chunkOffsetsS) {
      if (closed) throw new Error('records file: add after finish');
      const row = isRow(record) ? record : null;
      const entry: RecordsEntry = { row, failure: row === null ? (record as FailureRecord) : null, chunkOffsetsS };
      for (let c = 0; c < RECORDS_COLUMNS.length; c++) buffers[c]!.push(takeValue(RECORDS_COLUMNS[c]!, entry));
      inGroup += 1;
      rows += 1;
      if (inGroup === rowGroupRows) await flush();
    },
    async finish() {
      if (closed) throw new Error('records file: finished twice');
      try {
        await flush();
        closed = true;
        await channel.put(null);
        await pump;
        await handle.sync();
        await handle.close();
        await rename(temp, target);
      } catch (error) {
        await discard();
        throw new Error(`cannot write ${file}: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      }
      await syncDirectory(path.dirname(target));
      return { rows, bytes, sha256: hash.digest('hex') };
    },
    abandon: discard,
  };
}
