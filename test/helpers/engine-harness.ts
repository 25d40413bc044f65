/**
 * Test harness for the engine on a virtual clock: schedule arrivals at exact times, run, and get
 * an event log. Not a test file itself.
 */
import { VirtualClock } from '../../src/sim/clock.js';
import { resolveSimConfig, type SimConfigInput } from '../../src/sim/config.js';
import { Engine, type ChunkEvent, type SeqHandle, type StepInfo } from '../../src/sim/engine.js';
import type { OutputLimits } from '../../src/sim/output-plan.js';

/** One logged engine event. */
export type LoggedEvent =
  | { index: number; type: 'admitted'; atNs: number; cachedTokens: number }
  | ({ index: number; type: 'chunk' } & ChunkEvent);

/** A scripted arrival. */
export interface Arrival {
  atMs: number;
  /** Prompt pieces; `promptTokens` builds unique ones when pieces are not given. */
  pieces?: string[];
  promptTokens?: number;
  limits?: Partial<OutputLimits>;
  /** Cancel the request at this time (ms). */
  cancelAtMs?: number;
}

/** Distinct pieces so that no two generated prompts share a cache block. */
export function uniquePieces(tag: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${tag}:${i}`);
}

/** Run `arrivals` on a fresh engine and virtual clock until idle. */
export function runScript(config: SimConfigInput, arrivals: Arrival[]) {
  const clock = new VirtualClock();
  const steps: StepInfo[] = [];
  const engine = new Engine(resolveSimConfig(config), clock, { onStep: (s) => steps.push(s) });
  const events: LoggedEvent[] = [];
  const handles: SeqHandle[] = [];
  arrivals.forEach((a, i) => {
    clock.at(a.atMs * 1e6, () => {
      const limits: OutputLimits = { maxTokens: 16, minTokens: 0, ignoreEos: false, reasoningTokens: 0, ...a.limits };
      const pieces = a.pieces ?? uniquePieces(`req${i}`, a.promptTokens ?? 100);
      let index = -1;
      const handle = engine.submit(
        { promptPieces: pieces, limits },
        {
          onAdmitted: (e) => events.push({ index, type: 'admitted', ...e }),
          onChunk: (e) => events.push({ index, type: 'chunk', ...e }),
        },
      );
      index = handle.index;
      handles.push(handle);
      if (a.cancelAtMs !== undefined) clock.at(a.cancelAtMs * 1e6, () => handle.cancel());
    });
  });
  clock.runAll();
  return { events, steps, handles, engine, clock };
}

/** Event times of one request, in ms. */
export function timesOf(events: LoggedEvent[], index: number) {
  const mine = events.filter((e) => e.index === index);
  const chunks = mine.filter((e): e is Extract<LoggedEvent, { type: 'chunk' }> => e.type === 'chunk');
  const admitted = mine.find((e) => e.type === 'admitted');
  return {
    admittedMs: admitted === undefined ? null : admitted.atNs / 1e6,
    cachedTokens: admitted?.type === 'admitted' ? admitted.cachedTokens : null,
    firstMs: chunks[0] === undefined ? null : chunks[0].atNs / 1e6,
    lastMs: chunks.at(-1) === undefined ? null : (chunks.at(-1) as ChunkEvent).atNs / 1e6,
    chunkTokens: chunks.map((c) => c.reasoningTokens + c.contentTokens),
    chunks,
  };
}
