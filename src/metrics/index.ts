/**
 * The metrics stage's public surface: the reference summary (summarize.ts) and the servebench
 * extension block (extended.ts), their definition tables, percentiles and the SLO parser.
 */
export { summarize, computeMetrics, protocolLabel, contextDistribution, type Summary } from './summarize.js';
export { ROW_FIELDS, RUN_METRICS, renderMetricsMarkdown, type Definition, type Serialized } from './definitions.js';
export { percentile, percentileSorted, nearestRankIndex, sortAscending, sortNumbers, sortFloat64InPlace } from './percentile.js';
export { exactMean } from './exact-mean.js';
export { buildRow, buildFailure, rowInput, successFacts, outputAccounting } from './rows.js';
export type { CoreTimingRow, TimingRow, WrittenRow, AttemptRecord, FailureRecord, Metrics, MeasurementProtocol, OutputTokenSource, RowInput, RunInput, SuccessFacts } from './types.js';
export {
  computeExtendedMetrics,
  MAX_SERIES_BUCKETS,
  type ExtendedMetrics,
  type RunShape,
  type RequestDistributions,
  type ScheduleDistributions,
  type InterChunk,
  type SteadyState,
  type TimeSeries,
  type Goodput,
  type GoodputClause,
} from './extended.js';
export {
  FAMILIES,
  ENTRIES,
  EXTENDED_RULES,
  familyKeys,
  extendedKeyPaths,
  renderExtendedMarkdown,
  type Family,
  type FamilyKeys,
  type FamilyUnit,
  type Entry,
  type Peers,
  type MsFamily,
  type RateFamily,
  type TokenFamily,
} from './extended-definitions.js';
export { parseSlo, percentileName, SLO_METRICS, type Slo, type SloClause, type SloMetric } from './slo.js';
export { orderStatistics, nearestRankStats, Series, LEVELS, LEVEL_SUFFIX, type Level, type SeriesStats } from './order-stats.js';
