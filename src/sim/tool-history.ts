/**
 * The simulator checks a request's history of tool calls and results as the real APIs do, so a
 * client that sends results for calls that were never made, or leaves calls unanswered, gets the
 * 400 a real server would give rather than a silent success:
 * - chat and Messages: the calls of an assistant turn must each be answered by the results right
 *   after it (chat `role: "tool"` messages with `tool_call_id`; Messages `tool_result` blocks with
 *   `tool_use_id` in the next user message), and a result must answer one of those calls;
 * - Responses: a `function_call_output` must answer a `function_call` earlier in `input`.
 * Each API's history is first reduced to a list of steps (a turn's calls, a result, anything else).
 */
import { HttpError } from './requests.js';

/** One step of a history: the calls an assistant turn made, one tool result, or another message. */
export type HistoryStep =
  | { kind: 'calls'; ids: string[]; where: string }
  | { kind: 'result'; id: string; where: string }
  | { kind: 'other'; where: string };

/** Throws the 400 of a history whose results do not answer its calls (`strict`: chat and Messages). */
export function checkToolHistory(steps: readonly HistoryStep[], strict: boolean, field: string): void {
  const made = new Set<string>();
  let open: Set<string> | null = null;
  for (const step of steps) {
    if (step.kind === 'result') {
      const answers = strict ? open?.has(step.id) === true : made.has(step.id);
      if (!answers)
        throw new HttpError(
          400,
          'invalid_request',
          `${step.where}: no tool call with id '${step.id}' to answer`,
          'invalid_request_error',
          field,
        );
      open?.delete(step.id);
      continue;
    }
    if (strict && open !== null && open.size > 0)
      throw new HttpError(
        400,
        'invalid_request',
        `${step.where}: tool calls ${[...open].map((id) => `'${id}'`).join(', ')} have no result before this message`,
        'invalid_request_error',
        field,
      );
    open = null;
    if (step.kind === 'calls') {
      for (const id of step.ids) made.add(id);
      open = new Set(step.ids);
    }
  }
}
