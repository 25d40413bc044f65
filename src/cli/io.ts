/** What a CLI command may touch. Commands return an exit code; only src/cli/main.ts exits. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** True when stdout is a terminal. */
  isTTY: boolean;
}

/** A subcommand: receives the arguments after its name. Throws UsageError/InputFileError for exit 2. */
export type Command = (argv: string[], io: CliIO) => Promise<number>;
