#!/usr/bin/env node
/**
 * The servebench command line: dispatches to one subcommand and maps errors to exit codes.
 * This is the only place that exits the process (architecture rule 5). A command's module is
 * loaded when that command is called, so `--version` and `show` do not pay for `run`'s packages
 * (docs/architecture.md, "Loading").
 */
import { isEntryModule } from '../util/entry.js';
import { exitCodeOf, RunFailedError } from '../util/errors.js';
import { EXIT } from '../util/exit-codes.js';
import { lowerHelperThreadPriority } from '../util/thread-priority.js';
import { prepareRunHeap } from '../util/run-heap.js';
import { TOOL_VERSION } from '../util/version.js';
import { processIO, type CliIO, type Command } from './io.js';

/** Every command and where its handler is: loaded only when called. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./commands/run.js')).runCommand,
  plan: async () => (await import('./commands/plan.js')).planCommand,
  validate: async () => (await import('./commands/validate.js')).validateCommand,
  show: async () => (await import('./commands/show.js')).showCommand,
  sweep: async () => (await import('./commands/sweep.js')).sweepCommand,
  rebuild: async () => (await import('./commands/rebuild.js')).rebuildCommand,
  sim: async () => (await import('./commands/sim.js')).simCommand,
  report: async () => (await import('./commands/report.js')).reportCommand,
  list: async () => (await import('./commands/list.js')).listCommand,
  compare: async () => (await import('./commands/compare.js')).compareCommand,
  merge: async () => (await import('./commands/merge.js')).mergeCommand,
  k8s: async () => (await import('./commands/k8s.js')).k8sCommand,
};

/** The command names `main` dispatches to (tests check them against the flag tables). */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

/** The command list of `servebench --help`, in the tables' order (docs/cli.md shows the same). */
async function usage(): Promise<string> {
  const { COMMAND_SPECS } = await import('./command-flags.js');
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
    io.stdout(`${await usage()}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${TOOL_VERSION}\n`);
    return EXIT.ok;
  }
  const load = COMMANDS[name];
  if (load === undefined) {
    io.stderr(`servebench: unknown command '${name}' (commands: ${COMMAND_NAMES.join(', ')})\n`);
    return EXIT.usage;
  }
  try {
    const help = await helpOf(name, rest);
    if (help !== null) {
      io.stdout(help);
      return EXIT.ok;
    }
    return await (
      await load()
    )(rest, io);
  } catch (error) {
    const code = exitCodeOf(error);
    const message = error instanceof Error ? error.message : String(error);
    if (code !== EXIT.internal) {
      io.stderr(`servebench ${name}: ${message}\n`);
      return code;
    }
    io.stderr(`servebench ${name}: internal error: ${message.split('\n')[0] ?? ''}\n`);
    if (error instanceof RunFailedError && error.journalPath !== null) {
      io.stderr(`servebench ${name}: ${journalHint(error.finished, error.journalPath)}\n`);
    }
    if (io.env['SERVEBENCH_DEBUG'] && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
    return EXIT.internal;
  }
}

/**
 * The help of `servebench NAME ... --help` when the arguments parse by NAME's table and ask for
 * it: generated from that table here, for every command alike; null otherwise. Arguments that do
 * not parse are left to the command, which refuses them with the same parser.
 */
async function helpOf(name: string, argv: readonly string[]): Promise<string | null> {
  if (!argv.some((arg) => arg === '-h' || arg.startsWith('--help'))) return null;
  const [{ commandSpec }, { parseCommand }, { commandHelp }] = await Promise.all([
    import('./command-flags.js'),
    import('./args/parse.js'),
    import('./args/help.js'),
  ]);
  try {
    if (!parseCommand(argv, commandSpec(name)).help) return null;
  } catch {
    return null;
  }
  return commandHelp(commandSpec(name));
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
/** Commands that send requests: their heap is collected at each run's edges (util/run-heap.ts). */
const RUN_COMMANDS = new Set(['run', 'sweep']);

if (isEntryModule(import.meta.url)) {
  // First thing, before any worker thread exists: only V8's and libuv's helpers are lowered, and
  // threads started later (stream workers, the embedded simulator) keep the main thread's priority.
  if (TIMING_COMMANDS.has(process.argv[2] ?? '')) lowerHelperThreadPriority();
  if (RUN_COMMANDS.has(process.argv[2] ?? '')) prepareRunHeap();
  main(process.argv.slice(2), processIO()).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`servebench: internal error: ${String(error)}\n`);
      process.exitCode = EXIT.internal;
    },
  );
}
