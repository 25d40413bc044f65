/**
 * Start-up of the CLI: the wall time from spawning `node dist/src/cli/main.js ARGS` to its exit,
 * for the commands that do no work of their own (`--version`, `--help`, a command's `--help`), as
 * the median of `--runs` starts each, beside a bare `node -e 0` measured in the same run (Node's
 * own floor on this machine). Prints a table and, last, one JSON line of the medians.
 *
 *   node dist/bench/startup.js [--runs 21] [--previous OTHER/dist/src/cli/main.js]
 *
 * `--previous` adds the same cases for another build (the code before a change, built in its own
 * checkout), measured in the same run, interleaved with these.
 *
 * Run it on an idle machine: a start is a few tens of milliseconds, which a busy core doubles.
 * bench/README.md ("Start-up") has the figures.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { numberArg } from './args.js';

const CLI_PATH = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

/** What is started, by label: `node` alone, then the CLI with each argument list. */
function casesOf(cli: string, prefix: string): { label: string; args: readonly string[] }[] {
  return [
    { label: `${prefix} --version`, args: [cli, '--version'] },
    { label: `${prefix} --help`, args: [cli, '--help'] },
    { label: `${prefix} run --help`, args: [cli, 'run', '--help'] },
    { label: `${prefix} show --help`, args: [cli, 'show', '--help'] },
  ];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Wall ms of one start to exit; throws when the command fails (a broken build is no figure). */
function startMs(args: readonly string[]): number {
  const t0 = process.hrtime.bigint();
  const run = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (run.status !== 0) throw new Error(`${args.join(' ')}: exit ${run.status}: ${String(run.stderr).trim()}`);
  return ms;
}

function main(): void {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--runs');
  const runs = at === -1 ? 21 : numberArg('--runs', argv[at + 1], 'count');
  const previousAt = argv.indexOf('--previous');
  const previous = previousAt === -1 ? null : argv[previousAt + 1];
  if (previous === undefined || previous?.startsWith('--')) throw new Error('--previous: expected a main.js path');
  const CASES = [
    { label: 'node -e 0 (baseline)', args: ['-e', '0'] },
    ...casesOf(CLI_PATH, 'servebench'),
    ...(previous === null ? [] : casesOf(previous, 'previous')),
  ];
  // Interleaved, so a change in the machine's load touches every case alike.
  const times = CASES.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) for (const [c, each] of CASES.entries()) times[c]!.push(startMs(each.args));
  const medians = times.map(median);
  const baseline = medians[0]!;
  console.log(`start to exit, median of ${runs} runs (ms), and the ratio to bare node`);
  for (const [c, each] of CASES.entries())
    console.log(
      `  ${each.label.padEnd(26)} ${medians[c]!.toFixed(1).padStart(7)}  ${(medians[c]! / baseline).toFixed(2)}×`,
    );
  console.log(JSON.stringify(Object.fromEntries(CASES.map((each, c) => [each.label, Number(medians[c]!.toFixed(1))]))));
}

main();
