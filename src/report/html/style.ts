/** The report's stylesheet: system fonts only (nothing to download), light and dark themes from prefers-color-scheme. */
export const STYLE = `
:root { --bg: #f6f7f9; --panel: #ffffff; --fg: #1d2330; --muted: #5b6473; --grid: #e3e6eb; --line: #d5d9e0;
  --accent: #4e79a7; --good: #2f8f46; --bad: #c9353b; --warn-bg: #fff4e0; --ok-bg: #e9f6ec; --code: #eef1f5;
  --font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color-scheme: light dark; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #14171c; --panel: #1d2128; --fg: #e6e9ee; --muted: #a3acb9; --grid: #2c323b; --line: #353c47;
    --accent: #7aa6d6; --good: #5cc77a; --bad: #ff6b70; --warn-bg: #3a2e17; --ok-bg: #17301f; --code: #262b34; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.45 var(--font); }
header { padding: 20px 28px 8px; }
header h1 { margin: 0 0 2px; font-size: 22px; font-weight: 650; letter-spacing: -0.01em; }
header .sub { color: var(--muted); }
main { padding: 0 28px 40px; max-width: 1600px; }
section { margin-top: 22px; }
h2 { font-size: 16px; margin: 0 0 10px; font-weight: 650; }
h3 { font-size: 14px; margin: 0 0 6px; font-weight: 600; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 12px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; }
.card .title { color: var(--muted); font-size: 12.5px; font-weight: 600; }
.card .unit { font-weight: 400; }
.card .of { color: var(--muted); font-size: 0.6em; font-weight: 500; }
.chips { margin-top: 10px; display: flex; flex-wrap: wrap; gap: 6px; }
.chip { background: var(--panel); border: 1px solid var(--line); border-radius: 999px; padding: 2px 10px; font-size: 12.5px; }
.card .big { font-size: 24px; font-weight: 650; margin-top: 4px; font-variant-numeric: tabular-nums; }
.card .small { font-size: 14px; margin-top: 2px; font-variant-numeric: tabular-nums; }
.delta { font-size: 12px; color: var(--muted); }
.delta.good { color: var(--good); } .delta.bad { color: var(--bad); }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(480px, 1fr)); gap: 14px; }
.chart { position: relative; height: 300px; }
.chart.tall { height: var(--h, 420px); }
.note { color: var(--muted); font-size: 12.5px; margin: 6px 0 0; }
.note.warning { color: var(--fg); background: var(--warn-bg); padding: 6px 10px; border-radius: 6px; margin: 0 0 10px; }
.sw { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; vertical-align: baseline; }
.c0 { background: #4e79a7; } .c1 { background: #f28e2b; } .c2 { background: #59a14f; } .c3 { background: #e15759; }
.c4 { background: #b07aa1; } .c5 { background: #76b7b2; } .c6 { background: #edc948; } .c7 { background: #9c755f; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--grid); vertical-align: top; }
thead th { color: var(--muted); font-weight: 600; font-size: 12px; border-bottom: 1px solid var(--line); }
td.num { text-align: right; white-space: nowrap; }
table.numeric th { text-align: right; }
td.unit, div.unit { color: var(--muted); white-space: nowrap; font-size: 12px; }
td.def { color: var(--muted); font-size: 12.5px; min-width: 320px; }
table.identity td { word-break: break-all; }
table.identity tr.differs th::after { content: " ≠"; color: var(--bad); font-weight: 700; }
code { background: var(--code); padding: 0 4px; border-radius: 4px; font-size: 12px; }
.scroll { overflow-x: auto; }
ul.verdicts { list-style: none; padding: 0; margin: 10px 0 0; }
ul.verdicts li { padding: 6px 10px; border-radius: 6px; margin-top: 4px; }
ul.verdicts li.ok { background: var(--ok-bg); } ul.verdicts li.warn { background: var(--warn-bg); }
details summary { cursor: pointer; font-weight: 600; }
p.verdict { margin: 0 0 8px; padding: 6px 10px; border-radius: 6px; font-weight: 600; }
p.verdict.agree { background: var(--ok-bg); } p.verdict.differ { background: var(--warn-bg); }
td.differs { color: var(--bad); font-weight: 600; }
ul.raw { margin: 6px 0 0; padding-left: 18px; word-break: break-all; }
footer { color: var(--muted); font-size: 12px; padding: 0 28px 28px; }
`;
