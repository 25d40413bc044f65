/**
 * The `--format` names of the tools whose result files servebench reads (docs/interop.md), in the
 * order detection tries them. A leaf module, so the flag tables name them without loading the
 * readers and their parsers (docs/architecture.md, "Loading"); read-peer.ts's PEER_FORMATS is
 * typed by these names and test/peers/format-names.test.ts checks it lists them in this order.
 */
export const PEER_FORMAT_NAMES = [
  'sglang',
  'llmperf',
  'genai-bench',
  'vllm',
  'guidellm',
  'aiperf',
  'inference-perf',
] as const;

/** One of {@link PEER_FORMAT_NAMES}. */
export type PeerFormatName = (typeof PEER_FORMAT_NAMES)[number];
