/** The soak's parameters, shared by soak-child.ts (which runs it) and test/soak/soak.slow.ts (which checks it). */
export const SOAK_REQUESTS = 2000;
export const SOAK_CONCURRENCY = 64;
/** Every fault, with delays short enough for a soak (trickle is stopped by --request-timeout). */
export const SOAK_MIX = [
  'http_429:0.05',
  'http_500',
  'http_500_text',
  'http_503',
  'http_503_text',
  'echo_headers',
  'close_headers:0.3',
  'reset_headers:0.3',
  'slow_headers:0.5',
  'stall_first:0.5',
  'stall_mid:0.5',
  'trickle:1',
  'reset_mid',
  'close_mid',
  'malformed_json',
  'non_object',
  'stream_error',
  'stream_error_cut',
  'missing_usage',
  'missing_done',
  'huge_line',
  'invalid_utf8',
  'gzip',
].join(',');
/** Request counts at which memory is read (after two full collections). */
export const SAMPLE_AT = [250, 500, 1000, 1500, 2000];
