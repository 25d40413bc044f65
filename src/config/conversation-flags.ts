/**
 * The conversation flags of a run (docs/conversations.md): `--conversations`, `--turns`,
 * `--turn-tokens`, `--think-time`, resolved and checked against the rest of the configuration by
 * `resolveRunConfig`, before the conversations file is read (input-files.ts reads it).
 */
import { resolve } from 'node:path';
import { UsageError } from '../util/errors.js';
import type { FlagValue } from './flag-value.js';
import type { LoadConfig } from './run-config.js';

/** `--conversations`, `--turns`, `--turn-tokens`, `--think-time` of a conversation run. */
export interface ConversationConfig {
  /** Absolute path of `--conversations` (its content is `inputs.conversations`), or null: synthetic conversations. */
  file: string | null;
  /** `--turns`: turns of each synthetic conversation; with a file, the most turns of each (null: every turn). */
  turns: number | null;
  /** `--turn-tokens`: size of each later synthetic user message, tokens. */
  turnTokens: number;
  /** `--think-time`: seconds from a reply's end to the next turn's send. */
  thinkTimeS: number;
}

/**
 * The conversation flags (docs/conversations.md): `--turns N > 1` or `--conversations` make a
 * conversation run; `--turn-tokens` and `--think-time` apply only to one. Checked with the flags,
 * before the file is read.
 */
export function resolveConversations(
  values: Record<string, FlagValue>,
  str: (name: string) => string | null,
  cwd: string,
  given: ReadonlySet<string>,
  other: { dataset: boolean; sized: boolean; load: LoadConfig; burst: number; requestsGiven: boolean },
): ConversationConfig | null {
  const file = str('conversations');
  const turns = typeof values['turns'] === 'number' ? values['turns'] : null;
  if (file === null && (turns ?? 1) <= 1) {
    for (const flag of ['turn-tokens', 'think-time'])
      if (given.has(flag))
        throw new UsageError(`--${flag} applies to conversations: it needs --turns N > 1 or --conversations`);
    return null;
  }
  const what = file !== null ? '--conversations' : '--turns';
  if (file !== null && given.has('turn-tokens'))
    throw new UsageError('--turn-tokens sizes synthetic turns; --conversations brings its own user messages');
  if (other.dataset) throw new UsageError(`${what} and --dataset are two prompt sources; choose one`);
  if (file !== null && other.sized)
    throw new UsageError(
      '--conversations brings its own prompts; it cannot be combined with --ctx-tokens or --context-buckets',
    );
  if (other.load.kind === 'trace')
    throw new UsageError(`${what} cannot be combined with --trace: a trace's lines are single requests`);
  if (other.burst > 0) throw new UsageError(`${what} cannot be combined with --burst (use --concurrency)`);
  if (other.load.kind === 'closed' && other.load.durationS !== null && !other.requestsGiven)
    throw new UsageError(
      `${what}: a closed loop of conversations needs --requests (the number of conversations); --duration alone is not supported`,
    );
  if (str('endpoint') === 'embeddings')
    throw new UsageError(`${what} needs replies to send back; --endpoint embeddings has none`);
  if (typeof values['workers'] === 'number' && values['workers'] > 1)
    throw new UsageError(
      `${what} cannot be combined with --workers N > 1: conversations stream from the main thread (docs/conversations.md)`,
    );
  return {
    file: file === null ? null : resolve(cwd, file),
    turns,
    turnTokens: typeof values['turn-tokens'] === 'number' ? values['turn-tokens'] : 128,
    thinkTimeS: typeof values['think-time'] === 'number' ? values['think-time'] : 0,
  };
}
