/**
 * Validation of incoming OpenAI-style requests into what the engine needs. Unknown fields are
 * accepted and ignored (temperature, top_p, seed, stop, … have no effect on the simulator), as a
 * real server would accept them; fields the simulator interprets are type-checked.
 */
import { z } from 'zod';
import { formatIssues, type SimConfig } from './config.js';
import type { OutputLimits } from './output-plan.js';
import { chatPromptPieces, tokenize, type TemplateMessage } from './tokenizer.js';
import { checkToolHistory, type HistoryStep } from './tool-history.js';

/** An error answered as `{"error":{"message","type","param","code"}}` with `status`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly type = 'invalid_request_error',
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/**
 * Reasoning budget multiplier per `reasoning_effort`. `medium` (and no effort) uses
 * `reasoning_tokens` as configured; the scale is applied then rounded to whole tokens.
 */
export const REASONING_EFFORT_SCALE: Readonly<Record<string, number>> = {
  none: 0,
  minimal: 0.25,
  low: 0.5,
  medium: 1,
  high: 2,
  xhigh: 3,
  max: 4,
};

const optionalInt = (min: number) => z.int().min(min).nullish();

const TextPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const ChatToolCall = z.looseObject({
  id: z.string().nullish(),
  function: z.looseObject({ name: z.string(), arguments: z.string().nullish() }),
});
const Message = z.looseObject({
  role: z.string().min(1),
  content: z.union([z.string(), z.array(TextPart), z.null()]).optional(),
  /** An assistant turn that called tools (its content is then usually null). */
  tool_calls: z.array(ChatToolCall).nullish(),
  /** A tool result (role `tool`): the call it answers. */
  tool_call_id: z.string().nullish(),
});
/** Chat's tools: `[{type:"function", function:{name, parameters}}]`. */
const ChatTool = z.looseObject({
  type: z.string().nullish(),
  function: z.looseObject({ name: z.string().min(1), parameters: z.unknown().optional() }),
});
const Common = {
  model: z.string().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z
    .looseObject({ include_usage: z.boolean().nullish(), continuous_usage_stats: z.boolean().nullish() })
    .nullish(),
  max_tokens: optionalInt(1),
  min_tokens: optionalInt(0),
  ignore_eos: z.boolean().nullish(),
  n: z.literal(1, { message: 'only n=1 is supported' }).nullish(),
};
const ChatBody = z.looseObject({
  ...Common,
  messages: z.array(Message).min(1),
  max_completion_tokens: optionalInt(1),
  chat_template_kwargs: z.looseObject({ enable_thinking: z.boolean().nullish() }).nullish(),
  reasoning_effort: z.enum(Object.keys(REASONING_EFFORT_SCALE) as [string, ...string[]]).nullish(),
  tools: z.array(ChatTool).nullish(),
});
const CompletionBody = z.looseObject({
  ...Common,
  prompt: z.union([z.string(), z.array(z.string()).length(1, { message: 'only one prompt per request is supported' })]),
});

/** The generation endpoints: chat and text completions, OpenAI Responses, Anthropic Messages. */
export type GenerationKind = 'chat' | 'completion' | 'responses' | 'messages';

/** A validated generation request. */
export interface GenerationRequest {
  /** Which endpoint: shapes the response objects. */
  kind: GenerationKind;
  model: string;
  promptPieces: string[];
  stream: boolean;
  includeUsage: boolean;
  continuousUsage: boolean;
  limits: OutputLimits;
  /**
   * The first tool's name when the request carries a non-empty `tools` array (the one a tool-call
   * answer calls), else null. Whether this response calls it is decided at submission.
   */
  toolName: string | null;
}

/** Text of a message's content: a string, or the concatenated `text` of its text parts. */
function messageText(content: z.infer<typeof Message>['content'], i: number): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  let text = '';
  for (const part of content) {
    if (part.type !== 'text' || part.text === undefined) {
      throw new HttpError(
        400,
        'unsupported_content',
        `messages[${i}]: only text content parts are supported`,
        'invalid_request_error',
        'messages',
      );
    }
    text += part.text;
  }
  return text;
}

function parseOrThrow<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'invalid_request', 'request body must be a JSON object');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new HttpError(400, 'invalid_request', formatIssues(parsed.error));
  return parsed.data;
}

/** Resolve the output cap and check the context window (vLLM's rule: prompt + max_tokens ≤ max_model_len). */
function resolveLimits(
  config: SimConfig,
  promptTokens: number,
  requested: number | null | undefined,
  minTokens: number,
  ignoreEos: boolean,
  reasoningTokens: number,
): OutputLimits {
  const window = config.max_model_len;
  if (promptTokens >= window && (requested === undefined || requested === null)) {
    throw new HttpError(
      400,
      'context_length_exceeded',
      `This model's maximum context length is ${window} tokens, but the prompt has ${promptTokens} tokens; reduce the prompt.`,
    );
  }
  const maxTokens = requested ?? window - promptTokens;
  if (promptTokens + maxTokens > window) {
    throw new HttpError(
      400,
      'context_length_exceeded',
      `This model's maximum context length is ${window} tokens, but ${promptTokens + maxTokens} were requested ` +
        `(${promptTokens} prompt + ${maxTokens} max_tokens); reduce the prompt or max_tokens.`,
    );
  }
  if (minTokens > maxTokens) {
    throw new HttpError(
      400,
      'invalid_request',
      `min_tokens (${minTokens}) must be <= max_tokens (${maxTokens})`,
      'invalid_request_error',
      'min_tokens',
    );
  }
  return { maxTokens, minTokens, ignoreEos, reasoningTokens };
}

function checkModel(config: SimConfig, model: string | null | undefined): void {
  if (model !== undefined && model !== null && model !== config.model) {
    throw new HttpError(
      404,
      'model_not_found',
      `The model \`${model}\` does not exist; this server serves \`${config.model}\`.`,
      'invalid_request_error',
      'model',
    );
  }
}

/**
 * Validate a `/v1/chat/completions` body. The reasoning budget is `reasoning_tokens`, 0 when
 * `chat_template_kwargs.enable_thinking` is false, else scaled by REASONING_EFFORT_SCALE.
 * @throws HttpError 400 (bad field, context overflow) or 404 (unknown model).
 */
export function parseChatRequest(config: SimConfig, body: unknown): GenerationRequest {
  const req = parseOrThrow(ChatBody, body);
  checkModel(config, req.model);
  checkToolHistory(
    req.messages.map((m, i): HistoryStep => {
      const where = `messages[${i}]`;
      if (m.role === 'tool') return { kind: 'result', id: m.tool_call_id ?? '', where };
      const ids = (m.tool_calls ?? []).map((c) => c.id ?? '');
      return ids.length > 0 ? { kind: 'calls', ids, where } : { kind: 'other', where };
    }),
    true,
    'messages',
  );
  // A tool call in the history counts as its name and arguments; a tool result (role "tool") as its content.
  const messages: TemplateMessage[] = req.messages.map((m, i) => {
    let content = messageText(m.content, i);
    for (const call of m.tool_calls ?? []) content += `${call.function.name}${call.function.arguments ?? ''}`;
    return { role: m.role, content };
  });
  const promptPieces = chatPromptPieces(messages);
  const thinking = req.chat_template_kwargs?.enable_thinking !== false;
  const scale = REASONING_EFFORT_SCALE[req.reasoning_effort ?? 'medium'] ?? 1;
  const reasoning = thinking ? Math.round(config.reasoning_tokens * scale) : 0;
  const requested = req.max_completion_tokens ?? req.max_tokens;
  return {
    kind: 'chat',
    model: config.model,
    promptPieces,
    stream: req.stream === true,
    includeUsage: req.stream_options?.include_usage === true,
    continuousUsage: req.stream_options?.continuous_usage_stats === true,
    toolName: req.tools?.[0]?.function.name ?? null,
    limits: resolveLimits(
      config,
      promptPieces.length,
      requested,
      req.min_tokens ?? 0,
      req.ignore_eos === true,
      reasoning,
    ),
  };
}

/** Validate a `/v1/completions` body (raw prompt, no chat template, no reasoning phase). */
export function parseCompletionRequest(config: SimConfig, body: unknown): GenerationRequest {
  const req = parseOrThrow(CompletionBody, body);
  checkModel(config, req.model);
  const prompt = typeof req.prompt === 'string' ? req.prompt : (req.prompt[0] ?? '');
  const promptPieces = tokenize(prompt);
  if (promptPieces.length === 0)
    throw new HttpError(400, 'invalid_request', 'prompt must not be empty', 'invalid_request_error', 'prompt');
  return {
    kind: 'completion',
    model: config.model,
    promptPieces,
    stream: req.stream === true,
    includeUsage: req.stream_options?.include_usage === true,
    continuousUsage: req.stream_options?.continuous_usage_stats === true,
    toolName: null,
    limits: resolveLimits(config, promptPieces.length, req.max_tokens, req.min_tokens ?? 0, req.ignore_eos === true, 0),
  };
}

const ResponsesInputPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const ResponsesMessageItem = z.looseObject({
  type: z.literal('message').nullish(),
  role: z.string().min(1),
  content: z.union([z.string(), z.array(ResponsesInputPart)]),
});
/** A tool call of an earlier turn, and its result. */
const ResponsesCallItem = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
});
const ResponsesOutputItem = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string(),
  output: z.string(),
});
const ResponsesInputItem = z.union([ResponsesMessageItem, ResponsesCallItem, ResponsesOutputItem]);
/** The Responses API's tools: `[{type:"function", name, parameters}]`. */
const ResponsesTool = z.looseObject({
  type: z.string().nullish(),
  name: z.string().min(1),
  parameters: z.unknown().optional(),
});
const ResponsesBody = z.looseObject({
  model: z.string().nullish(),
  input: z.union([z.string(), z.array(ResponsesInputItem).min(1)]),
  instructions: z.string().nullish(),
  max_output_tokens: optionalInt(1),
  stream: z.boolean().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  reasoning: z
    .looseObject({ effort: z.enum(Object.keys(REASONING_EFFORT_SCALE) as [string, ...string[]]).nullish() })
    .nullish(),
  tools: z.array(ResponsesTool).nullish(),
});

/** Text of one Responses input item's content: a string or its `input_text` / `output_text` parts. */
function responsesText(content: z.infer<typeof ResponsesMessageItem>['content'], i: number): string {
  if (typeof content === 'string') return content;
  let text = '';
  for (const part of content) {
    if ((part.type !== 'input_text' && part.type !== 'output_text') || part.text === undefined) {
      throw new HttpError(
        400,
        'unsupported_content',
        `input[${i}]: only input_text content parts are supported`,
        'invalid_request_error',
        'input',
      );
    }
    text += part.text;
  }
  return text;
}

/**
 * Validate a `/v1/responses` body (OpenAI Responses API). `instructions` is a system turn before
 * the input; the prompt uses the chat template. The reasoning budget is `reasoning_tokens` scaled
 * by REASONING_EFFORT_SCALE[`reasoning.effort`] (medium when absent), as chat's reasoning_effort.
 * @throws HttpError 400 (bad field, context overflow) or 404 (unknown model).
 */
export function parseResponsesRequest(config: SimConfig, body: unknown): GenerationRequest {
  const req = parseOrThrow(ResponsesBody, body);
  checkModel(config, req.model);
  const messages: TemplateMessage[] = [];
  if (req.instructions !== undefined && req.instructions !== null)
    messages.push({ role: 'system', content: req.instructions });
  if (typeof req.input === 'string') messages.push({ role: 'user', content: req.input });
  else {
    checkToolHistory(
      req.input.map((m, i): HistoryStep => {
        const where = `input[${i}]`;
        if (m.type === 'function_call') return { kind: 'calls', ids: [m.call_id], where };
        if (m.type === 'function_call_output') return { kind: 'result', id: m.call_id, where };
        return { kind: 'other', where };
      }),
      false,
      'input',
    );
    req.input.forEach((m, i) => {
      if (m.type === 'function_call') messages.push({ role: 'assistant', content: `${m.name}${m.arguments}` });
      else if (m.type === 'function_call_output') messages.push({ role: 'tool', content: m.output });
      else messages.push({ role: m.role, content: responsesText(m.content, i) });
    });
  }
  const scale = REASONING_EFFORT_SCALE[req.reasoning?.effort ?? 'medium'] ?? 1;
  return typedEventsRequest(
    'responses',
    config,
    messages,
    req,
    req.max_output_tokens,
    Math.round(config.reasoning_tokens * scale),
  );
}

/**
 * A Responses or Messages request: both APIs always report usage (no `stream_options`), have no
 * `min_tokens` / `ignore_eos`, and answer a request with tools by calling the first one.
 */
function typedEventsRequest(
  kind: 'responses' | 'messages',
  config: SimConfig,
  messages: readonly TemplateMessage[],
  req: { stream?: boolean | null | undefined; tools?: readonly { name: string }[] | null | undefined },
  maxTokens: number | null | undefined,
  reasoningTokens: number,
): GenerationRequest {
  const promptPieces = chatPromptPieces(messages);
  return {
    kind,
    model: config.model,
    promptPieces,
    stream: req.stream === true,
    includeUsage: true,
    continuousUsage: false,
    toolName: req.tools?.[0]?.name ?? null,
    limits: resolveLimits(config, promptPieces.length, maxTokens, 0, false, reasoningTokens),
  };
}

const AnthropicText = z.looseObject({ type: z.string(), text: z.string().optional() });
/** A content block: `text`, or (in history) `tool_use` / `tool_result`; other types are refused when read. */
const AnthropicBlock = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  name: z.string().optional(),
  input: z.unknown().optional(),
  content: z.union([z.string(), z.array(AnthropicText)]).optional(),
  /** A `tool_use` block's id, and the `tool_use_id` a `tool_result` block answers. */
  id: z.string().optional(),
  tool_use_id: z.string().optional(),
});
const AnthropicMessage = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(AnthropicBlock)]),
});
/** Anthropic's tools: `[{name, description?, input_schema}]`. */
const AnthropicTool = z.looseObject({
  name: z.string().min(1),
  description: z.string().nullish(),
  input_schema: z.unknown(),
});
const MessagesBody = z.looseObject({
  model: z.string().nullish(),
  max_tokens: z.int().min(1),
  messages: z.array(AnthropicMessage).min(1),
  system: z.union([z.string(), z.array(AnthropicText)]).nullish(),
  stream: z.boolean().nullish(),
  temperature: z.number().min(0).max(1).nullish(),
  thinking: z
    .discriminatedUnion('type', [
      z.looseObject({ type: z.literal('enabled'), budget_tokens: z.int().min(1) }),
      z.looseObject({ type: z.literal('disabled') }),
    ])
    .nullish(),
  tools: z.array(AnthropicTool).nullish(),
});

/**
 * Text of Anthropic content: a string or its blocks: `text`, a `tool_use` (its name and input as
 * JSON), a `tool_result` (its content's text).
 */
function anthropicText(content: string | z.infer<typeof AnthropicBlock>[], where: string): string {
  if (typeof content === 'string') return content;
  let text = '';
  for (const block of content) {
    if (block.type === 'text' && block.text !== undefined) text += block.text;
    else if (block.type === 'tool_use' && block.name !== undefined)
      text += block.name + JSON.stringify(block.input ?? {});
    else if (block.type === 'tool_result') text += anthropicText(block.content ?? '', `${where}.tool_result`);
    else {
      throw new HttpError(
        400,
        'unsupported_content',
        `${where}: only text, tool_use and tool_result content blocks are supported`,
      );
    }
  }
  return text;
}

/**
 * Validate a `/v1/messages` body (Anthropic Messages API). `system` is a system turn before the
 * messages; the prompt uses the chat template. The reasoning budget is `thinking.budget_tokens`
 * when enabled, 0 when disabled, and `reasoning_tokens` as configured when `thinking` is absent;
 * like chat's, it counts toward max_tokens.
 * @throws HttpError 400 (bad field, context overflow) or 404 (unknown model).
 */
export function parseMessagesRequest(config: SimConfig, body: unknown): GenerationRequest {
  const req = parseOrThrow(MessagesBody, body);
  checkModel(config, req.model);
  checkToolHistory(
    req.messages.flatMap((m, i): HistoryStep[] => {
      const where = `messages[${i}]`;
      if (typeof m.content === 'string') return [{ kind: 'other', where }];
      const ids = m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id ?? ''] : []));
      const results = m.content.flatMap((b): HistoryStep[] =>
        b.type === 'tool_result' ? [{ kind: 'result', id: b.tool_use_id ?? '', where }] : [],
      );
      // A user message's results answer the turn before; its other blocks come after them.
      if (results.length > 0)
        return results.length === m.content.length ? results : [...results, { kind: 'other', where }];
      return [ids.length > 0 ? { kind: 'calls', ids, where } : { kind: 'other', where }];
    }),
    true,
    'messages',
  );
  const messages: TemplateMessage[] = [];
  if (req.system !== undefined && req.system !== null)
    messages.push({ role: 'system', content: anthropicText(req.system, 'system') });
  req.messages.forEach((m, i) => messages.push({ role: m.role, content: anthropicText(m.content, `messages[${i}]`) }));
  const thinking = req.thinking;
  const reasoning =
    thinking === undefined || thinking === null
      ? config.reasoning_tokens
      : thinking.type === 'enabled'
        ? thinking.budget_tokens
        : 0;
  return typedEventsRequest('messages', config, messages, req, req.max_tokens, reasoning);
}

/** A validated `/v1/embeddings` request. */
export interface EmbeddingRequest {
  model: string;
  /** One entry per input: its text, or its token ids joined (what seeds its vector). */
  inputs: string[];
  /** Prompt pieces of every input, concatenated (what the engine prefills). */
  promptPieces: string[];
  encoding: 'float' | 'base64';
  dimensions: number;
}

const EmbeddingsBody = z.looseObject({
  model: z.string().nullish(),
  input: z.union([z.string(), z.array(z.string()).min(1), z.array(z.array(z.int().min(0)).min(1)).min(1)]),
  encoding_format: z.enum(['float', 'base64']).nullish(),
  dimensions: z.int().min(1).nullish(),
});

/**
 * Validate a `/v1/embeddings` body. Token-id inputs count one token per id; every input must fit
 * the context window on its own.
 * @throws HttpError 400 (bad field, empty or too long input) or 404 (unknown model).
 */
export function parseEmbeddingsRequest(config: SimConfig, body: unknown): EmbeddingRequest {
  const req = parseOrThrow(EmbeddingsBody, body);
  checkModel(config, req.model);
  const raw = typeof req.input === 'string' ? [req.input] : req.input;
  const inputs: string[] = [];
  const promptPieces: string[] = [];
  raw.forEach((input, i) => {
    const pieces = typeof input === 'string' ? tokenize(input) : input.map((id) => `#${id}`);
    if (pieces.length === 0)
      throw new HttpError(400, 'invalid_request', `input[${i}] must not be empty`, 'invalid_request_error', 'input');
    if (pieces.length > config.max_model_len) {
      throw new HttpError(
        400,
        'context_length_exceeded',
        `This model's maximum context length is ${config.max_model_len} tokens, but input[${i}] has ${pieces.length} tokens.`,
        'invalid_request_error',
        'input',
      );
    }
    inputs.push(typeof input === 'string' ? input : input.join(','));
    for (const p of pieces) promptPieces.push(p);
  });
  const dimensions = req.dimensions ?? config.embedding_dimensions;
  if (dimensions > config.embedding_dimensions) {
    throw new HttpError(
      400,
      'invalid_request',
      `dimensions (${dimensions}) must be <= ${config.embedding_dimensions}`,
      'invalid_request_error',
      'dimensions',
    );
  }
  return { model: config.model, inputs, promptPieces, encoding: req.encoding_format ?? 'float', dimensions };
}
