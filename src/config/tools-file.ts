/**
 * Reads `--tools FILE`: a JSON array of function tools, each in any of the three common shapes
 * (OpenAI chat `{"type":"function","function":{"name","description","parameters"}}`, Responses
 * `{"type":"function","name","description","parameters"}`, Anthropic `{"name","description",
 * "input_schema"}`), so a user can paste the tools their agent already sends. Every problem is
 * one line naming the file, the array index and the field.
 */
import { InputFileError } from '../util/errors.js';
import { readInputFile } from '../util/read-file.js';
import type { ToolDefinition } from '../workload/tools.js';

/** A tools file is definitions, not data: 4 MiB is far beyond any agent's tool list. */
export const MAX_TOOLS_FILE_BYTES = 4 * 1024 * 1024;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads and checks a tools file. */
export function loadTools(file: string, displayName = file): ToolDefinition[] {
  const { text } = readInputFile(file, MAX_TOOLS_FILE_BYTES, 'tools', displayName);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputFileError(displayName, `not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(value)) throw new InputFileError(displayName, 'expected a JSON array of tools');
  if (value.length === 0) throw new InputFileError(displayName, 'no tools in the array');
  const names = new Set<string>();
  return value.map((item, i) => {
    const tool = toolFrom(item, `${displayName}: [${i}]`);
    if (names.has(tool.name))
      throw new InputFileError(`${displayName}: [${i}]`, `tool name '${tool.name}' is given twice`);
    names.add(tool.name);
    return tool;
  });
}

function toolFrom(item: unknown, where: string): ToolDefinition {
  if (!isObject(item)) throw new InputFileError(where, 'expected a JSON object');
  const inner = isObject(item['function']) ? item['function'] : item;
  const name = inner['name'];
  if (typeof name !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(name))
    throw new InputFileError(where, "field 'name' must be 1-64 letters, digits, '_', '.' or '-'");
  const description = inner['description'];
  if (description !== undefined && description !== null && typeof description !== 'string')
    throw new InputFileError(where, "field 'description' must be a string");
  const schema = inner['parameters'] ?? inner['input_schema'] ?? { type: 'object' };
  if (!isObject(schema))
    throw new InputFileError(where, "field 'parameters' (or 'input_schema') must be a JSON object");
  return { name, description: typeof description === 'string' ? description : null, parameters: schema };
}
