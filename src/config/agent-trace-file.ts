/**
 * One agent session of a `--conversations` JSONL file (docs/agent-traces.md): a line with
 * `steps` instead of `messages`. Each step is one turn: a user message, or the result of the tools
 * the previous reply called, given as text or as a size in tokens, sent `delay_s` seconds after
 * the previous reply ended (the tool's run time, or the user's), with its own output cap.
 *
 *   {"id": "s1", "system": "...", "steps": [
 *     {"user": "Fix the failing test"},
 *     {"tool_result_tokens": 900, "delay_s": 1.5},
 *     {"tool_result": "All 12 tests pass.", "delay_s": 8.2, "output_tokens": 64}]}
 *
 * Every problem names the file, the line and the field.
 */
import { InputFileError } from '../util/errors.js';
import type { ConversationSpec, TurnSpec } from '../workload/conversation.js';

/** The text of a step: exactly one of these, the first two for user steps, the last two for tool results. */
const CONTENT_KEYS = ['user', 'user_tokens', 'tool_result', 'tool_result_tokens'] as const;
const STEP_KEYS = new Set<string>([...CONTENT_KEYS, 'delay_s', 'output_tokens']);
const SESSION_KEYS = new Set(['id', 'system', 'steps']);
/** A step sized in tokens gets that many tokens of filler: a bound that keeps the plan in memory. */
const MAX_STEP_TOKENS = 1_000_000;

/** Whether a JSONL line's object is an agent session (it has `steps`). */
export function isAgentSession(value: Record<string, unknown>): boolean {
  return 'steps' in value;
}

/** Reads one agent session line; `origin` is how the plan names it (`line 12`). */
export function agentSession(value: Record<string, unknown>, where: string, origin: string): ConversationSpec {
  for (const key of Object.keys(value))
    if (!SESSION_KEYS.has(key)) throw new InputFileError(where, `unknown field '${key}' (id, system, steps)`);
  const id = value['id'];
  if (id !== undefined && typeof id !== 'string' && typeof id !== 'number')
    throw new InputFileError(where, "field 'id' must be a string or a number");
  const system = value['system'];
  if (system !== undefined && typeof system !== 'string')
    throw new InputFileError(where, "field 'system' must be a string");
  const steps = value['steps'];
  if (!Array.isArray(steps) || steps.length === 0)
    throw new InputFileError(where, "field 'steps' must be a non-empty array");
  const turns = steps.map((step, j) => turnOf(step, where, `steps[${j}]`, j));
  return {
    system: system === undefined || system === '' ? [] : [{ role: 'system', content: system }],
    turns,
    origin: id === undefined ? origin : `${origin} (${String(id)})`,
  };
}

function turnOf(step: unknown, where: string, path: string, index: number): TurnSpec {
  if (typeof step !== 'object' || step === null || Array.isArray(step))
    throw new InputFileError(where, `field '${path}' must be an object`);
  const fields = step as Record<string, unknown>;
  for (const key of Object.keys(fields))
    if (!STEP_KEYS.has(key))
      throw new InputFileError(where, `field '${path}': unknown key '${key}' (${[...STEP_KEYS].join(', ')})`);
  const given = CONTENT_KEYS.filter((key) => key in fields);
  if (given.length !== 1)
    throw new InputFileError(where, `field '${path}' needs exactly one of ${CONTENT_KEYS.join(', ')}`);
  const key = given[0]!;
  const kind = key.startsWith('user') ? 'user' : 'tool';
  if (index === 0 && kind === 'tool')
    throw new InputFileError(
      where,
      `field '${path}': the first step must be a user message (a tool result answers a reply)`,
    );
  const raw = fields[key];
  let text: string | null = null;
  let tokens: number | null = null;
  if (key.endsWith('_tokens')) tokens = count(raw, where, `${path}.${key}`, MAX_STEP_TOKENS);
  else if (typeof raw === 'string' && raw !== '') text = raw;
  else throw new InputFileError(where, `field '${path}.${key}' must be a non-empty string`);
  const delay = fields['delay_s'];
  let delayS: number | null = null;
  if (delay !== undefined) {
    if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0)
      throw new InputFileError(where, `field '${path}.delay_s' must be a number of seconds ≥ 0`);
    if (index === 0)
      throw new InputFileError(where, `field '${path}.delay_s': the first step has no reply before it to wait from`);
    delayS = delay;
  }
  const output = fields['output_tokens'];
  const maxTokens = output === undefined ? null : count(output, where, `${path}.output_tokens`, MAX_STEP_TOKENS);
  return { kind, text, tokens, delayS, maxTokens };
}

function count(value: unknown, where: string, path: string, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max)
    throw new InputFileError(where, `field '${path}' must be an integer from 1 to ${max}`);
  return value;
}
