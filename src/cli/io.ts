/** What a CLI command may touch. Commands return an exit code; only src/cli/main.ts exits. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** True when stdout is a terminal. */
  isTTY: boolean;
  /**
   * Subscribes to the interrupts a user sends (SIGINT, SIGTERM) and returns the unsubscribe. The
   * process's signals in the CLI; a test's own source in tests, which run commands in-process
   * (docs/testing.md, "Tiers").
   */
  onSignal: (handler: (signal: InterruptSignal) => void) => () => void;
  /** The wall clock, for names and labels only (run ids, printed times); never for measuring. */
  now: () => Date;
}

/** The signals every command treats as an interrupt. */
export type InterruptSignal = 'SIGINT' | 'SIGTERM';

/** The process's own I/O: what `servebench` on a terminal gets. */
export function processIO(): CliIO {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    isTTY: process.stdout.isTTY === true,
    onSignal: (handler) => {
      process.on('SIGINT', handler);
      process.on('SIGTERM', handler);
      return () => {
        process.off('SIGINT', handler);
        process.off('SIGTERM', handler);
      };
    },
    now: () => new Date(),
  };
}

/** A subcommand: receives the arguments after its name. Throws UsageError/InputFileError for exit 2. */
export type Command = (argv: string[], io: CliIO) => Promise<number>;
