/**
 * `--tools FILE`: the function tools every request offers (docs/endpoints.md, "Tool calls"), and
 * their shape in each API's request body. The definitions are data the server sees, so each API
 * gets the same name, description and JSON-schema parameters in its own wrapping.
 */
import type { Endpoint } from '../record/endpoint.js';

/** One function tool, as the three chat-like APIs share it. */
export interface ToolDefinition {
  name: string;
  description: string | null;
  /** JSON schema of the arguments (an object schema); `{"type":"object"}` when the file gave none. */
  parameters: Record<string, unknown>;
}

/** `tools` in the body of a request to `endpoint` (chat, responses and messages take tools; the caller checks). */
export function toolsForEndpoint(endpoint: Endpoint, tools: readonly ToolDefinition[]): unknown[] {
  return tools.map((tool) => {
    const description = tool.description === null ? {} : { description: tool.description };
    if (endpoint === 'responses')
      return { type: 'function', name: tool.name, ...description, parameters: tool.parameters };
    if (endpoint === 'messages') return { name: tool.name, ...description, input_schema: tool.parameters };
    return { type: 'function', function: { name: tool.name, ...description, parameters: tool.parameters } };
  });
}

/** The endpoints whose requests can carry tools. */
export const TOOL_ENDPOINTS: readonly Endpoint[] = ['chat', 'responses', 'messages'];
