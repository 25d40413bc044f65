/**
 * Public API of `servebench/sim`: the built-in OpenAI-compatible simulator with a queueing model
 * of an LLM engine (re-exports only).
 * @example
 * import { startSim } from 'servebench/sim';
 * const sim = await startSim({ prefill_tok_s: 4000, decode_step_ms: 8 });
 * // point a client at sim.url, then: await sim.close();
 */
export { startSim, type SimHandle } from './server.js';
export {
  SimConfigSchema,
  resolveSimConfig,
  loadSimConfigFile,
  formatIssues,
  type SimConfig,
  type SimConfigInput,
  type OutputTokensConfig,
} from './config.js';
export {
  Engine,
  type EngineRequest,
  type EngineListener,
  type EngineOptions,
  type EngineStats,
  type EngineUsage,
  type AdmittedEvent,
  type ChunkEvent,
  type SeqHandle,
  type StepInfo,
} from './engine.js';
export { RealClock, VirtualClock, type SimClock, type CancelTimer } from './clock.js';
export { planOutput, drawContentLength, type OutputLimits, type OutputPlan } from './output-plan.js';
export {
  tokenize,
  countTokens,
  chatPromptPieces,
  countChatTokens,
  pieceId,
  pieceIds,
  CHAT_TEMPLATE_TOKENS_PER_MESSAGE,
  CHAT_TEMPLATE_GENERATION_TOKENS,
  VOCAB_SIZE,
  type TemplateMessage,
} from './tokenizer.js';
export { REASONING_EFFORT_SCALE } from './requests.js';
export {
  FAULTS,
  FAULT_HEADER,
  FaultSchedule,
  FaultSpecError,
  parseFault,
  parseFaultSpec,
  formatFault,
  type Fault,
  type FaultName,
  type FaultPlan,
  type FaultDefinition,
} from './faults.js';
export type { GroundTruth, ModelTimes } from './ground-truth.js';
export { timingErrors, type TimingError, type TimingErrors, type ClockAlignment } from './timing-error.js';
