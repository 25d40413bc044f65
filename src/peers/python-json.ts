/**
 * JSON as Python's `json.dumps` writes it by default (`allow_nan=True`): the bare tokens `NaN`,
 * `Infinity` and `-Infinity` are numbers. SGLang writes `"request_rate": Infinity` for a run
 * with every request sent at once. Standard JSON.parse refuses them, so they are first turned into
 * marker strings (outside string literals only) and turned back into numbers while parsing.
 */

const MARKER = '\u0000servebench-py-number:';
const TOKENS: readonly [string, number][] = [
  ['-Infinity', -Infinity],
  ['Infinity', Infinity],
  ['NaN', NaN],
];

/** Parses `text` like JSON.parse, also taking Python's bare NaN / Infinity / -Infinity. Throws SyntaxError. */
export function parsePythonJson(text: string): unknown {
  if (!/NaN|Infinity/.test(text)) return JSON.parse(text);
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
      continue;
    }
    const token = TOKENS.find(([name]) => text.startsWith(name, i));
    if (token !== undefined) {
      out += JSON.stringify(MARKER + token[0]);
      i += token[0].length - 1;
      continue;
    }
    out += c;
  }
  return JSON.parse(out, (_key, value: unknown) => {
    if (typeof value !== 'string' || !value.startsWith(MARKER)) return value;
    return TOKENS.find(([name]) => MARKER + name === value)?.[1] ?? value;
  });
}
