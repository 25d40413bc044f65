/** The prompt budget a window leaves: what the context plan is capped at. */
import { UsageError } from '../util/errors.js';

/** `cap = window − max_tokens − margin`, null when the window is unknown; an impossible budget is a usage error (docs/protocol.md#prompt-budget). */
export function promptCap(window: number | null, maxTokens: number, margin: number): number | null {
  if (window === null) return null;
  const cap = window - maxTokens - margin;
  if (cap <= 0) {
    throw new UsageError(
      `max_model_len must exceed max_tokens plus the context margin (window ${window}, max_tokens ${maxTokens}, margin ${margin})`,
    );
  }
  return cap;
}
