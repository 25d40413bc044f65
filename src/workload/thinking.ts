/**
 * Thinking / reasoning controls, resolved exactly as the reference does (docs/protocol.md#thinking-and-reasoning-controls):
 * `--no-thinking` forces `disabled`; `enabled`/`disabled` become
 * `chat_template_kwargs.enable_thinking`; `--reasoning-effort` is sent top-level and excludes an
 * explicit thinking mode; some model families only accept some efforts (fail-closed rules).
 */
import { UsageError } from '../util/errors.js';

export type ThinkingMode = 'default' | 'enabled' | 'disabled' | 'unsupported';

/** What the flags say, before resolution. */
export interface ThinkingFlags {
  thinkingMode: ThinkingMode | undefined;
  noThinking: boolean;
  reasoningEffort: string | undefined;
}

/** The resolved controls: what goes into the request body and into `serve_flags`. */
export interface ThinkingControls {
  mode: ThinkingMode;
  noThinking: boolean;
  reasoningEffort: string | null;
  /** `chat_template_kwargs` to send, or null. */
  chatTemplateKwargs: { enable_thinking: boolean } | null;
  mechanism: 'none' | 'chat_template_kwargs' | 'reasoning_effort' | 'unsupported';
}

/** Resolves the flags; an explicit non-default mode together with an effort is a usage error. */
export function resolveThinking(flags: ThinkingFlags): ThinkingControls {
  const mode: ThinkingMode = flags.noThinking ? 'disabled' : (flags.thinkingMode ?? 'default');
  const effort = flags.reasoningEffort ?? null;
  if (effort !== null && (flags.noThinking || (flags.thinkingMode !== undefined && flags.thinkingMode !== 'default'))) {
    throw new UsageError('--reasoning-effort cannot be combined with --no-thinking or an explicit --thinking-mode');
  }
  if (effort !== null) {
    return {
      mode,
      noThinking: flags.noThinking,
      reasoningEffort: effort,
      chatTemplateKwargs: null,
      mechanism: 'reasoning_effort',
    };
  }
  if (mode === 'enabled' || mode === 'disabled') {
    return {
      mode,
      noThinking: flags.noThinking,
      reasoningEffort: null,
      chatTemplateKwargs: { enable_thinking: mode === 'enabled' },
      mechanism: 'chat_template_kwargs',
    };
  }
  return {
    mode,
    noThinking: flags.noThinking,
    reasoningEffort: null,
    chatTemplateKwargs: null,
    mechanism: mode === 'unsupported' ? 'unsupported' : 'none',
  };
}

/**
 * The reference's model-family rules (docs/protocol.md#thinking-and-reasoning-controls), applied to the case-folded model id.
 * Unknown families are unrestricted.
 */
export function checkModelFamily(model: string, controls: ThinkingControls): void {
  const id = model.toLowerCase();
  const effort = controls.reasoningEffort;
  const allow = (family: string, allowed: readonly string[]): void => {
    if (effort !== null && !allowed.includes(effort)) {
      throw new UsageError(
        `--reasoning-effort ${effort} is not accepted by ${family} models (allowed: ${allowed.join(', ')})`,
      );
    }
  };
  if (id.includes('gpt-oss')) {
    if (controls.chatTemplateKwargs !== null) {
      throw new UsageError('gpt-oss models do not take chat-template thinking controls; use --reasoning-effort');
    }
    allow('gpt-oss', ['low', 'medium', 'high']);
  } else if (id.includes('deepseek-v4') || id.includes('deepseek_v4')) {
    allow('deepseek-v4', ['low', 'high', 'max']);
  } else if (id.includes('qwen3.8') || id.includes('qwen38')) {
    allow('qwen3.8', ['low', 'medium', 'xhigh']);
  } else if (id.includes('qwen') && effort !== null) {
    throw new UsageError(`--reasoning-effort is not accepted by qwen models other than qwen3.8 (model '${model}')`);
  }
}
