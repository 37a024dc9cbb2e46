#include "tuner/report/report_style.hpp"

namespace attn {
namespace {

const char* kStyle = R"(
:root { --ink: #1d2230; --muted: #5f6b7a; --line: #dde2e8; --soft: #f4f6f8; --ok: #2b8a3e; --bad: #c92a2a; --warn: #e8590c; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1320px; padding: 18px 26px 40px; color: var(--ink); background: #fff;
       font: 13px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", "Liberation Sans", sans-serif; }
h1 { font-size: 21px; margin: 0 0 2px; } h2 { font-size: 17px; margin: 28px 0 6px; padding-top: 10px; border-top: 2px solid var(--ink); }
h3 { font-size: 14.5px; margin: 22px 0 2px; } h3 .shape { font-weight: normal; color: var(--muted); font-size: 12.5px; }
code, .mono, td.key { font-family: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 12px; }
.meta { color: var(--muted); margin: 2px 0; } .meta b { color: var(--ink); font-weight: 600; }
nav { margin: 10px 0 0; padding: 8px 12px; background: var(--soft); border-radius: 6px; columns: 2 320px; font-size: 12.5px; }
nav a { color: inherit; text-decoration: none; } nav a:hover { text-decoration: underline; } nav .dim { color: var(--muted); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 1px 14px; margin: 6px 0 10px; font-size: 12.5px; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.headline { margin: 4px 0 8px; } .headline .big { font-size: 15px; font-weight: 650; }
.pill { display: inline-block; padding: 0 7px; border-radius: 9px; background: var(--soft); color: var(--ink); margin-right: 4px; font-size: 12px; }
.pill.good { background: #d3f9d8; color: #1b5e20; } .pill.bad { background: #ffe3e3; color: #8f1d1d; } .pill.warn { background: #fff0db; color: #8a4b00; }
.charts { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; margin: 6px 0; }
figure { margin: 0; } figcaption { color: var(--muted); font-size: 11.5px; max-width: 560px; }
svg.chart { font-size: 10.5px; fill: var(--ink); overflow: visible; }
svg .axis-title { font-weight: 600; font-size: 11px; } svg .caption, svg .legend { fill: var(--muted); font-size: 10px; }
svg .grid { stroke: #e6e9ee; stroke-width: 1; } svg .iqr { stroke: #9aa5b1; stroke-width: 1.4; }
svg .pt { fill: #4e79a7; } svg .pt-best { fill: var(--ok); stroke: #111; stroke-width: 1; } svg .pt-baseline { fill: var(--warn); stroke: #111; stroke-width: 1; }
svg .annot { fill: var(--warn); font-size: 10px; font-weight: 600; }
svg .cell-best { stroke: #111; stroke-width: 2.2; } svg .cell-failed { fill: #eceff3; stroke: #c5ccd6; stroke-dasharray: 3 2; }
svg .cell-empty { fill: #fafbfc; } svg .cell-note { fill: var(--muted); font-size: 9.5px; font-style: italic; }
svg .cell-ms { font-size: 11px; font-weight: 600; } svg .cell-rel { font-size: 9.5px; }
svg .roof { stroke: var(--ink); stroke-width: 1.8; } svg .roof-label { font-size: 10px; fill: var(--muted); }
svg .roof-best { stroke: #111; stroke-width: 1.2; } svg .roof-pt { opacity: .55; }
table { border-collapse: collapse; margin: 6px 0 4px; font-variant-numeric: tabular-nums; }
th, td { padding: 2px 8px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th { position: sticky; top: 0; background: #fff; font-weight: 600; font-size: 11.5px; color: var(--muted); border-bottom: 1.5px solid var(--ink); }
td.l, th.l { text-align: left; } tr:nth-child(even) td { background: #fafbfc; } tr:hover td { background: #eef3fb; }
tr.best td { background: #ebfbee; font-weight: 600; } tr.baseline td:first-child { box-shadow: inset 3px 0 var(--warn); }
td.rel { min-width: 110px; } .bar { display: inline-block; height: 9px; vertical-align: middle; margin-right: 6px; border-radius: 2px; }
.status { font-weight: 600; } .status.ok { color: var(--ok); } .status.failed { color: var(--bad); } .status.skipped { color: var(--muted); }
td.reason { white-space: normal; text-align: left; max-width: 640px; overflow-wrap: anywhere; }
details { margin: 4px 0; } summary { cursor: pointer; color: var(--muted); } pre.log { max-height: 220px; overflow: auto; background: var(--soft); padding: 6px; font-size: 11px; white-space: pre-wrap; }
.note { color: var(--muted); font-size: 12px; } footer { margin-top: 30px; color: var(--muted); font-size: 11.5px; }
)";

}  // namespace

const char* report_css() { return kStyle; }

}  // namespace attn
