/**
 * What other tools call servebench's figures, as the readers' field tables (src/peers/, one per
 * format) say: each field a reader takes as a figure, with the servebench figure it stands for.
 * This is the one place both docs/interop.md (per tool, its servebench column) and
 * docs/metrics.md (per servebench figure, "What other tools call it") read the mapping from, so
 * the two pages cannot disagree; test/docs-peer-names.test.ts checks the rendered pages.
 */
import { PEER_FORMATS } from '../../src/peers/read-peer.js';
import type { FieldSpec } from '../../src/peers/peer-run.js';

/** One field of a tool's format that a reader takes as (or nearest to) a servebench figure. */
export interface PeerMapping {
  /** The reader's `--format` name. */
  format: string;
  tool: string;
  /** The tool's own key. */
  field: string;
  /** The servebench figure (a result `metrics` key). */
  servebench: string;
  /** The tool's definition is servebench's (`=`), or only the nearest one (`≈`). */
  same: boolean;
}

/** `=` when the tool's definition is servebench's, `≈` when its figure is only the nearest one. */
export function relationMark(same: boolean): '=' | '≈' {
  return same ? '=' : '≈';
}

/** docs/interop.md's servebench cell of a field: `= \`name\``, `≈ \`name\`` or `–` (no servebench figure). */
export function relationCell(spec: Pick<FieldSpec, 'servebench' | 'same'>): string {
  return spec.servebench === null ? '–' : `${relationMark(spec.same)} \`${spec.servebench}\``;
}

/**
 * Every mapping of the static field tables (the ones docs/interop.md lists; run-dependent names
 * such as configurable percentiles are read alike but listed nowhere), in PEER_FORMATS order and
 * each table's order.
 */
export function peerMappings(): PeerMapping[] {
  return PEER_FORMATS.flatMap((format) =>
    format.fields.flatMap((spec) =>
      spec.servebench === null
        ? []
        : [{ format: format.name, tool: format.tool, field: spec.field, servebench: spec.servebench, same: spec.same }],
    ),
  );
}
