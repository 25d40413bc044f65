/**
 * The run journal as a run output (record/journal.ts writes the lines): the header line when the
 * clock starts, one line per finished request, the end line last. The file is created only when
 * the clock has started, so a set-up that is interrupted, or a shard refused at the common
 * instant, leaves none (docs/output-files.md, "Nothing measured is lost").
 */
import {
  JOURNAL_BATCH_MS,
  JOURNAL_BATCH_REQUESTS,
  JOURNAL_SCHEMA,
  JournalWriter,
  type JournalLine,
} from '../record/journal.js';
import { RecordBlock } from '../record/store/block.js';
import type { RunEndAddition, RunEnding, RunOutput } from './run-output.js';
import type { RunHeader } from '../assemble/assemble.js';
import type { RequestResult } from '../record/types.js';
import type { ClientBlock } from '../result/servebench-schema.js';

/** A fixed path, or the path for the run's id (decided once set-up is over, before the clock starts). */
export type JournalPath = string | ((runId: string) => string);

export class JournalOutput implements RunOutput {
  private path: string | null;
  private writer: JournalWriter | null = null;
  /** Finished requests not yet written: one frame, once full or {@link JOURNAL_BATCH_MS} after its first. */
  private batch: RecordBlock | null = null;
  private batchTimer: NodeJS.Timeout | null = null;

  /** `warn` says once, when it happens, that the journal could not be written; the run goes on. */
  constructor(
    private readonly where: JournalPath,
    private readonly warn: (text: string) => void = () => undefined,
  ) {
    this.path = typeof where === 'string' ? where : null;
  }

  named(runId: string): void {
    // Before the clock starts: the caller's choice of path (the CLI's default output name checks
    // the results folder) must not delay the first request on the run's clock.
    if (typeof this.where !== 'string') this.path = this.where(runId);
  }

  start(header: RunHeader): void {
    if (this.path === null) throw new Error('the journal was started before the run was named');
    this.writer = new JournalWriter(this.path);
    this.line({ type: 'header', schema: JOURNAL_SCHEMA, run: header });
  }

  record(result: RequestResult): void {
    if (this.writer === null) return;
    const batch = (this.batch ??= new RecordBlock(JOURNAL_BATCH_REQUESTS));
    batch.append(result);
    if (batch.n === JOURNAL_BATCH_REQUESTS) this.flush();
    else if (this.batchTimer === null) {
      this.batchTimer = setTimeout(() => this.flush(), JOURNAL_BATCH_MS);
      this.batchTimer.unref();
    }
  }

  /** Writes the batch (the requests finished so far), if any. */
  private flush(): void {
    if (this.batchTimer !== null) clearTimeout(this.batchTimer);
    this.batchTimer = null;
    const batch = this.batch;
    const writer = this.writer;
    if (batch === null || writer === null) return;
    this.batch = null;
    const wasWriting = writer.error === null;
    if (!writer.appendBlock(batch) && wasWriting) this.warnFailure(writer);
  }

  async finish(ending: RunEnding | null): Promise<RunEndAddition | void> {
    const writer = this.writer;
    if (writer === null) return;
    this.flush();
    if (ending !== null) {
      const { end } = ending;
      // The end line records the journal's status as it will be once that line is written, so a
      // rebuild reproduces the result byte for byte (unless the final flush then fails).
      const before = writer.status();
      const expected = { ...before, complete: before.error === null && before.header_written, end_written: true };
      this.line({
        type: 'end',
        wall_s: end.wallSeconds,
        finished_at: end.finishedAt,
        interrupted: end.interrupted,
        ...(end.client !== undefined ? { client: end.client } : {}),
        ...(end.workers !== undefined ? { workers: end.workers } : {}),
        ...(end.promptSetId !== undefined ? { prompt_set_id: end.promptSetId } : {}),
        journal: expected,
        ...(end.serverMetrics !== undefined ? { server_metrics: end.serverMetrics } : {}),
      });
    }
    writer.close();
    return { journal: writer.status() };
  }

  // A line that comes after the journal was closed (a client failure ends the run while other
  // streams still finish) is no write failure: those requests are simply not in it, and the
  // failure says so.
  private line(line: JournalLine<RunHeader, ClientBlock>): void {
    const writer = this.writer;
    if (writer === null) return;
    const wasWriting = writer.error === null;
    if (!writer.append(line) && wasWriting) this.warnFailure(writer);
  }

  private warnFailure(writer: JournalWriter): void {
    // Read afresh: the write that failed has just set it.
    const { error } = writer.status();
    if (error !== null)
      this.warn(`the journal ${writer.path} could not be written (${error}); the run goes on without it`);
  }
}
