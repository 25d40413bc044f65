/**
 * The names servebench's live metrics take from the OpenTelemetry semantic conventions for
 * generative AI, written once so the exporter and docs/monitoring.md cannot disagree.
 *
 * Source: OpenTelemetry semantic conventions v1.41.0, docs/gen-ai/gen-ai-metrics.md
 * (https://github.com/open-telemetry/semantic-conventions/blob/v1.41.0/docs/gen-ai/gen-ai-metrics.md,
 * rendered at https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-metrics/), status
 * Development. The GenAI conventions have since moved to their own repository
 * (open-telemetry/semantic-conventions-genai), whose drafts rename the client metrics
 * `gen_ai.client.inference.*`; v1.41.0 is the last release of the main repository that has the
 * streaming metrics (time to first chunk, time per output chunk), so servebench follows it.
 *
 * Prometheus names follow the OpenTelemetry-to-Prometheus rules: dots become underscores, the
 * unit `s` becomes the `_seconds` suffix, a curly-brace annotation unit (`{token}`) adds nothing.
 * Attributes become labels the same way (`gen_ai.request.model` → `gen_ai_request_model`).
 */

/** Which convention, for the docs and the metrics' help text. */
export const SEMCONV_VERSION = 'v1.41.0';

/** gen_ai.client.operation.duration (histogram, s): the whole request, failures included (with error_type). */
export const OPERATION_DURATION = 'gen_ai_client_operation_duration_seconds';
/** gen_ai.client.operation.time_to_first_chunk (histogram, s): from the request's write to its first output chunk. */
export const TIME_TO_FIRST_CHUNK = 'gen_ai_client_operation_time_to_first_chunk_seconds';
/** gen_ai.client.operation.time_per_output_chunk (histogram, s): each output chunk after the first, from the previous one. */
export const TIME_PER_OUTPUT_CHUNK = 'gen_ai_client_operation_time_per_output_chunk_seconds';
/** gen_ai.client.token.usage (histogram, {token}): tokens per request, by gen_ai_token_type input|output. */
export const TOKEN_USAGE = 'gen_ai_client_token_usage';

/** The attributes the convention names for these metrics, as Prometheus labels (only those servebench knows). */
export const GEN_AI_LABELS = [
  'gen_ai_operation_name',
  'gen_ai_provider_name',
  'gen_ai_request_model',
  'server_address',
  'server_port',
] as const;

export type GenAiLabels = Record<(typeof GEN_AI_LABELS)[number], string>;

/**
 * The label values of one run against `baseUrl` for `model`. `gen_ai_operation_name` is the
 * well-known value `chat` (OpenAI's Chat Completions API, which servebench sends).
 * `gen_ai_provider_name` is `openai`: the convention calls it the discriminator of the telemetry
 * flavour, set from the instrumentation's best knowledge, and servebench speaks the OpenAI API to
 * whatever serves it; `gen_ai_request_model` and `server_address` tell which server that is.
 */
export function genAiLabels(baseUrl: string, model: string): GenAiLabels {
  const url = new URL(baseUrl);
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  // An IPv6 literal keeps its brackets in URL.hostname; server.address is the bare address.
  const address = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return {
    gen_ai_operation_name: 'chat',
    gen_ai_provider_name: 'openai',
    gen_ai_request_model: model,
    server_address: address,
    server_port: port,
  };
}
