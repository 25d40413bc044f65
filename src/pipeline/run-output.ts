/**
 * Where a run goes besides its result: the journal, the console's progress, the live metrics,
 * the server scrape's block, a shard's file. Each is a {@link RunOutput} the caller picks (the
 * CLI: docs/architecture.md, "A run, from flags to file"); the pipeline drives them all in one
 * loop, in the order given, and knows none of them by name.
 */
import type { RunEnd, RunHeader } from '../assemble/assemble.js';
import type { RunPlan } from '../plan/run-plan.js';
import type { RequestResult } from '../record/types.js';
import type { RequestRecords } from '../record/records.js';

/** What is known when the clock starts, besides the header. */
export interface RunStart {
  plan: RunPlan;
  /** Requests this process sends: the plan's, or a shard's part of them. */
  requests: number;
  /** The run's clock (process.hrtime.bigint()) at its start. */
  runStartNs: bigint;
  /** The wall clock at `runStartNs`, epoch ms (where shards' clocks meet). */
  wallStartMs: number;
}

/** The run has ended: its end facts (with what the outputs before this one added) and every record. */
export interface RunEnding {
  end: RunEnd;
  records: RequestRecords;
}

/** What an output adds to the end facts: the outputs after it see it, and so does the result. */
export type RunEndAddition = Pick<RunEnd, 'journal' | 'serverMetrics'>;

/**
 * One destination of a run. The pipeline calls `named` once set-up is over, `start` once the
 * clock has started, `sent` and `record` as requests go and finish, and `finish` once at the end
 * (with null when the run failed, or was stopped before its clock started). Nothing before
 * `finish` may wait: it runs on the run's clock, between requests.
 */
export interface RunOutput {
  /**
   * Set-up is over and the clock starts next: the run is named (its id). Names are chosen here,
   * before the clock, but nothing is created yet — a start refused at the last moment (a shard
   * late for the common instant) must leave no file behind.
   */
  named?(runId: string): void;
  /** The clock has started: the run's header, complete and never changed afterwards. */
  start(header: RunHeader, run: RunStart): void;
  /** A request was handed to the client. */
  sent?(index: number): void;
  /** A request finished (warm-up marked), in completion order. */
  record(result: RequestResult): void;
  /** The run ended (`ending`) or failed (null): write what ends the output, close it, and say what it adds to the end. */
  finish(ending: RunEnding | null): Promise<RunEndAddition | void>;
}
