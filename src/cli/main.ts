#!/usr/bin/env node
/**
 * The servebench command line: dispatches to one subcommand and maps errors to exit codes.
 * This is the only place that exits the process (architecture rule 5).
 */
import { isEntryModule } from '../util/entry.js';
import { InputFileError, InterruptedError, RunFailedError, UsageError } from '../util/errors.js';
import { lowerHelperThreadPriority } from '../util/thread-priority.js';
import { TOOL_VERSION } from '../util/version.js';
import { TokenizerCalibrationError } from '../workload/tokenizer/index.js';
import { EXIT } from './exit-codes.js';
import type { CliIO, Command } from './io.js';
import { runCommand } from './commands/run.js';
import { planCommand } from './commands/plan.js';
import { validateCommand } from './commands/validate.js';
import { showCommand } from './commands/show.js';
import { simCommand } from './commands/sim.js';
import { rebuildCommand } from './commands/rebuild.js';
import { sweepCommand } from './commands/sweep.js';
import { compareCommand } from './commands/compare.js';
import { listCommand } from './commands/list.js';
import { reportCommand } from './commands/report.js';
import { mergeCommand } from './commands/merge.js';
import { k8sCommand } from './commands/k8s.js';
import { COMMAND_SPECS, commandSpec } from './command-flags.js';
import { commandHelp } from './args/help.js';
import { parseCommand } from './args/parse.js';

const HANDLERS: Record<string, Command> = {
  run: runCommand,
  plan: planCommand,
  validate: validateCommand,
  show: showCommand,
  sweep: sweepCommand,
  rebuild: rebuildCommand,
  sim: simCommand,
  report: reportCommand,
  list: listCommand,
  compare: compareCommand,
  merge: mergeCommand,
  k8s: k8sCommand,
};

/** Every command with its handler and the summary its table (command-flags.ts) gives it. */
const COMMANDS: Record<string, { command: Command; summary: string }> = Object.fromEntries(
  Object.entries(HANDLERS).map(([name, command]) => [name, { command, summary: commandSpec(name).summary }]),
);

/** The command list of `servebench --help`, in the tables' order (docs/cli.md shows the same). */
function usage(): string {
  const names = COMMAND_SPECS.filter((spec) => spec.name in COMMANDS).map(
    (spec) => `  ${spec.name.padEnd(10)}${spec.summary}`,
  );
  return [
    `servebench ${TOOL_VERSION}: measure OpenAI-compatible LLM servers under load`,
    '',
    'usage: servebench <command> [flags]',
    '',
    ...names,
    '',
    "Run 'servebench <command> --help' for a command's flags.",
  ].join('\n');
}

/** Runs the CLI and returns the exit code (exported for tests). */
export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(`${usage()}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${TOOL_VERSION}\n`);
    return EXIT.ok;
  }
  const entry = COMMANDS[name];
  if (entry === undefined) {
    io.stderr(`servebench: unknown command '${name}' (commands: ${Object.keys(COMMANDS).join(', ')})\n`);
    return EXIT.usage;
  }
  try {
    if (wantsHelp(name, rest)) {
      io.stdout(commandHelp(commandSpec(name)));
      return EXIT.ok;
    }
    return await entry.command(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`servebench ${name}: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof TokenizerCalibrationError) {
      // Prompts cannot be sized as asked before any measured request: a usage problem.
      io.stderr(`servebench ${name}: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof InputFileError) {
      io.stderr(`servebench ${name}: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof InterruptedError) {
      io.stderr(`servebench ${name}: ${error.message}\n`);
      return EXIT.interrupted;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`servebench ${name}: internal error: ${message.split('\n')[0] ?? ''}\n`);
    if (error instanceof RunFailedError && error.journalPath !== null) {
      io.stderr(`servebench ${name}: ${journalHint(error.finished, error.journalPath)}\n`);
    }
    if (io.env['SERVEBENCH_DEBUG'] && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
    return EXIT.internal;
  }
}

/**
 * True when `servebench NAME ... --help` parses by NAME's table and asks for help: the help is
 * generated from that table here, for every command alike. Arguments that do not parse are left
 * to the command, which refuses them with the same parser.
 */
function wantsHelp(name: string, argv: readonly string[]): boolean {
  try {
    return parseCommand(argv, commandSpec(name)).help;
  } catch {
    return false;
  }
}

/** Where a failed run's finished requests are, and how to make a result of them. */
export function journalHint(finished: number, journalPath: string): string {
  if (finished === 0) return `no request had finished; the journal is ${journalPath}`;
  const [requests, them] =
    finished === 1 ? ['1 request that finished is', 'it'] : [`${finished} requests that finished are`, 'them'];
  return `the ${requests} in ${journalPath}; \`servebench rebuild ${journalPath}\` makes a result of ${them}`;
}

/** Commands that take timestamps: their helper threads yield to the threads that take them. */
const TIMING_COMMANDS = new Set(['run', 'sweep', 'sim']);

if (isEntryModule(import.meta.url)) {
  // First thing, before any worker thread exists: only V8's and libuv's helpers are lowered, and
  // threads started later (stream workers, the embedded simulator) keep the main thread's priority.
  if (TIMING_COMMANDS.has(process.argv[2] ?? '')) lowerHelperThreadPriority();
  const io: CliIO = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    isTTY: process.stdout.isTTY === true,
  };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`servebench: internal error: ${String(error)}\n`);
      process.exitCode = EXIT.internal;
    },
  );
}
