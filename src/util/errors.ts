/**
 * Run-level errors: typed, with a stable code and the exit status each stands for (one table:
 * exit-codes.ts); src/cli/main.ts asks {@link exitCodeOf} once and is the only place that exits.
 * Request-level failures are data (src/record/types.ts), never these.
 */
import { EXIT, type ExitCode } from './exit-codes.js';

/** The exit status an error stands for: its own `exitCode`, or EXIT.internal for any other error. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof Error && 'exitCode' in error) {
    const code = (error as { exitCode: unknown }).exitCode;
    if (Object.values(EXIT).includes(code as ExitCode)) return code as ExitCode;
  }
  return EXIT.internal;
}

/** Bad flags, bad input files, or an impossible configuration, detected before any request. Exit 2. */
export class UsageError extends Error {
  readonly code = 'usage';
  readonly exitCode = EXIT.usage;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A file that cannot be read as what it should be (not JSON, wrong schema, too large). Exit 2. */
export class InputFileError extends Error {
  readonly code = 'input-file';
  readonly exitCode = EXIT.usage;
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'InputFileError';
  }
}

/**
 * The client itself failed in the middle of a run (a stream worker died, a bug): not the server's
 * fault and not a request failure. What finished before it is in the journal, which `servebench
 * rebuild` turns into a result. Exit 3, as any internal error.
 */
export class RunFailedError extends Error {
  readonly code = 'run-failed';
  readonly exitCode = EXIT.internal;
  constructor(
    message: string,
    /** The run's journal, or null when the run kept none. */
    readonly journalPath: string | null,
    /** Requests that finished (and were journaled) before the failure, warm-up included. */
    readonly finished: number,
  ) {
    super(message);
    this.name = 'RunFailedError';
  }
}

/**
 * SIGINT/SIGTERM (an aborted stop signal) arrived before the run proper started: while probing
 * the server, calibrating, sizing prompts or warming connections. Nothing was measured, so no
 * result is written. Exit 130, as any interrupted run.
 */
export class InterruptedError extends Error {
  readonly code = 'interrupted';
  readonly exitCode = EXIT.interrupted;
  constructor(message = 'interrupted before the first measured request: nothing was measured, no result written') {
    super(message);
    this.name = 'InterruptedError';
  }
}
