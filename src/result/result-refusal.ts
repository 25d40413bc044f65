/**
 * The one-line refusal of a file that is JSON but not a valid result, shared by the whole-text
 * reader (io.ts) and the streamed one (read-streamed.ts) so both say the same thing.
 */

import { InputFileError } from '../util/errors.js';
import type { Era } from './schema.js';

/** `text` on one line, cut at `max` characters. */
export function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * The refusal of `file`: the first three problems and how many more (`total` when only the
 * first few were kept); `era` null when the value is no result file at all.
 */
export function resultRefusal(
  file: string,
  era: Era | null,
  problems: readonly string[],
  total: number = problems.length,
): InputFileError {
  if (era === null) return new InputFileError(file, oneLine(problems.join('; ')));
  const shown = problems.slice(0, 3).join('; ');
  const more = total > 3 ? ` (and ${total - 3} more)` : '';
  return new InputFileError(file, `not a valid ${era} result file: ${oneLine(shown, 300)}${more}`);
}
