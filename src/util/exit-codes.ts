/** servebench's exit codes, one table. */
export const EXIT = {
  /** Everything planned completed; files consistent. */
  ok: 0,
  /** `run`: at least one request failed (the result is still written). `validate`: a figure disagrees. */
  failed: 1,
  /** Bad usage or unreadable input, detected before any request. */
  usage: 2,
  /** A bug in servebench itself. */
  internal: 3,
  /** `run` was interrupted (SIGINT/SIGTERM): a partial result was written, or none when no request had started. */
  interrupted: 130,
} as const;

/** One of the statuses above. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
