/**
 * The report's browser script, inlined after Chart.js. It only draws: every number was computed
 * by data.ts and arrives as JSON in `#sb-data`. Each canvas names its chart kind (and run) in
 * data attributes, so the page decides which charts exist and this script fills them.
 * Charts are drawn without animation so the page is complete once loaded (screenshots, tests);
 * each Chart instance is listed in `window.__sbCharts` for the browser test.
 * Kept as plain ES2020 text (no template literals) because it is not compiled by tsc.
 */
export const CLIENT_SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('sb-data').textContent);
  var css = getComputedStyle(document.documentElement);
  var fg = css.getPropertyValue('--muted').trim() || '#555';
  var grid = css.getPropertyValue('--grid').trim() || '#ddd';
  var PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948', '#9c755f'];
  var PHASE = { prefill: '#f0a04b', reasoning: '#b07aa1', visible: '#4e79a7', failed: '#e15759' };
  Chart.defaults.color = fg;
  Chart.defaults.borderColor = grid;
  Chart.defaults.font.family = css.getPropertyValue('--font').trim() || 'system-ui, sans-serif';
  Chart.defaults.animation = false;
  Chart.defaults.responsive = true;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.plugins.legend.labels.boxWidth = 12;
  window.__sbCharts = [];

  function color(i, alpha) {
    var c = PALETTE[i % PALETTE.length];
    if (alpha === undefined) return c;
    var n = parseInt(c.slice(1), 16);
    return 'rgba(' + (n >> 16) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + alpha + ')';
  }
  function axis(title, type) {
    return { type: type || 'linear', title: { display: true, text: title }, grid: { color: grid } };
  }
  // Writes each point's load beside it (sweep charts), so a printed page needs no tooltip.
  var loadLabels = {
    id: 'sbLoadLabels',
    afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx;
      ctx.save();
      ctx.fillStyle = fg;
      ctx.font = '11px ' + Chart.defaults.font.family;
      chart.data.datasets.forEach(function (d, i) {
        if (!d.loadLabels) return;
        chart.getDatasetMeta(i).data.forEach(function (el, k) {
          var l = d.data[k].load;
          if (l !== undefined) ctx.fillText(d.loadLabels + l, el.x + 6, el.y - 6);
        });
      });
      ctx.restore();
    }
  };
  function draw(canvas, config) {
    var chart = new Chart(canvas, config);
    window.__sbCharts.push({ id: canvas.id, chart: chart });
  }
  function xy(pairs) {
    return pairs.map(function (p) { return { x: p[0], y: p[1] }; });
  }
  // A CDF starts at 0 at its smallest value, so the first step is drawn.
  function cdfPoints(pairs) {
    return pairs.length === 0 ? [] : [{ x: pairs[0][0], y: 0 }].concat(xy(pairs));
  }
  // Log axes label only 1, 2 and 5 times a power of ten.
  function logTick(v) {
    var m = v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9));
    return [1, 2, 5].some(function (k) { return Math.abs(m - k) < 1e-6; }) ? (v >= 1 ? String(Math.round(v)) : String(+v.toPrecision(1))) : '';
  }

  // With server metrics the client's load chart and the server's charts share one x range, so
  // the same instant sits at the same place in each; without them the load chart is as it was.
  function timeAxis(run) {
    var x = Object.assign(axis('s from run start'), { min: 0 });
    if (run.server) x.max = run.server.xMax;
    return x;
  }
  // A gauge at each scrape instant; a missing sample is a gap.
  function gaugeSet(label, t, ys, c, yAxis) {
    return { label: label, data: t.map(function (x, k) { return { x: x, y: ys[k] }; }), borderColor: color(c), backgroundColor: color(c),
      pointRadius: 2, borderWidth: 2, yAxisID: yAxis };
  }
  // A rate holds from one scrape to the next: a step, closed at the last scrape.
  function rateSet(label, t, ys, c, yAxis) {
    var pts = ys.map(function (y, k) { return { x: t[k], y: y }; });
    if (ys.length > 0) pts.push({ x: t[t.length - 1], y: ys[ys.length - 1] });
    return { label: label, data: pts, borderColor: color(c), backgroundColor: color(c), stepped: 'after', pointRadius: 0, borderWidth: 2, yAxisID: yAxis };
  }
  // The client's per-second buckets, dashed, for comparison on the same axis.
  function clientSet(label, series, ys, c, yAxis) {
    var pts = series.t.map(function (x, k) { return { x: x, y: ys[k] }; });
    pts.push({ x: series.t[series.t.length - 1] + 1, y: ys[ys.length - 1] });
    return { label: label, data: pts, borderColor: color(c), backgroundColor: color(c), borderDash: [6, 4], stepped: 'after', pointRadius: 0, borderWidth: 1.5, yAxisID: yAxis };
  }

  var builders = {
    cdf: function (canvas) {
      var key = canvas.dataset.metric;
      var sets = data.runs.map(function (run, i) {
        return { label: run.label, data: cdfPoints(run.cdf[key]), borderColor: color(i), backgroundColor: color(i), stepped: 'after', pointRadius: 0, borderWidth: 2 };
      }).filter(function (d) { return d.data.length > 0; });
      draw(canvas, { type: 'line', data: { datasets: sets }, options: {
        scales: { x: axis('ms'), y: Object.assign(axis('fraction of requests ≤ x'), { min: 0, max: 1 }) },
        plugins: { legend: { display: data.runs.length > 1 } } } });
    },
    timeline: function (canvas) {
      var run = data.runs[Number(canvas.dataset.run)];
      var t = run.timeline;
      var labels = t.bars.map(function (b) { return '#' + b[0]; });
      var seg = function (from, to) { return t.bars.map(function (b) { return [b[from], b[to]]; }); };
      var sets = [
        { label: 'waiting + prefill (to first output)', data: seg(1, 2), backgroundColor: PHASE.prefill },
        { label: 'reasoning', data: seg(2, 3), backgroundColor: PHASE.reasoning },
        { label: 'visible generation', data: seg(3, 4), backgroundColor: PHASE.visible }
      ];
      if (t.failures.length > 0) {
        t.failures.forEach(function (f) { labels.push('#' + f[0] + ' ✗'); });
        var pad = t.bars.map(function () { return null; });
        sets.push({ label: 'failed', data: pad.concat(t.failures.map(function (f) { return [f[1], f[2]]; })), backgroundColor: PHASE.failed });
      }
      sets.forEach(function (s) { s.grouped = false; s.barPercentage = 1; s.categoryPercentage = 0.9; });
      draw(canvas, { type: 'bar', data: { labels: labels, datasets: sets }, options: {
        indexAxis: 'y',
        scales: { x: axis('ms from run start'), y: { ticks: { autoSkip: true, maxTicksLimit: 24 }, grid: { display: false } } },
        plugins: { tooltip: { callbacks: { label: function (c) { var r = c.raw; return r ? c.dataset.label + ': ' + r[0].toFixed(0) + '–' + r[1].toFixed(0) + ' ms' : ''; } } } } } });
    },
    series: function (canvas) {
      var run = data.runs[Number(canvas.dataset.run)];
      var s = run.series;
      // Each value holds for its whole one-second bucket: close the last step at its end.
      var pts = function (ys) {
        var out = s.t.map(function (t, k) { return { x: t, y: ys[k] }; });
        return out.concat([{ x: s.t[s.t.length - 1] + 1, y: ys[ys.length - 1] }]);
      };
      draw(canvas, { type: 'line', data: { datasets: [
        { label: 'output tok/s', data: pts(s.tokS), borderColor: PALETTE[0], backgroundColor: color(0, 0.15), fill: true, stepped: 'after', pointRadius: 0, yAxisID: 'y' },
        { label: 'requests in flight (avg)', data: pts(s.inFlight), borderColor: PALETTE[1], backgroundColor: PALETTE[1], stepped: 'after', pointRadius: 0, yAxisID: 'y1' }
      ] }, options: { scales: { x: timeAxis(run), y: Object.assign(axis('output tok/s'), { min: 0 }),
        y1: Object.assign(axis('in flight'), { min: 0, position: 'right', grid: { drawOnChartArea: false } }) } } });
    },
    serverLoad: function (canvas) {
      var run = data.runs[Number(canvas.dataset.run)];
      var s = run.server;
      var sets = [];
      if (s.running) sets.push(gaugeSet('requests running (server)', s.t, s.running, 2, 'y'));
      if (s.waiting) sets.push(gaugeSet('requests waiting (server)', s.t, s.waiting, 3, 'y'));
      if (run.series) sets.push(clientSet('requests in flight (client avg)', run.series, run.series.inFlight, 1, 'y'));
      if (s.kvPct) sets.push(gaugeSet('KV-cache usage % (server)', s.t, s.kvPct, 4, 'y1'));
      draw(canvas, { type: 'line', data: { datasets: sets }, options: { scales: { x: timeAxis(run),
        y: Object.assign(axis('requests'), { min: 0 }),
        y1: Object.assign(axis('KV-cache usage %'), { min: 0, max: 100, position: 'right', grid: { drawOnChartArea: false } }) } } });
    },
    serverTokens: function (canvas) {
      var run = data.runs[Number(canvas.dataset.run)];
      var s = run.server;
      var sets = [];
      if (s.generatedTokS) sets.push(rateSet('generated tok/s (server)', s.t, s.generatedTokS, 0, 'y'));
      if (run.series) sets.push(clientSet('output tok/s (client)', run.series, run.series.tokS, 1, 'y'));
      if (s.promptTokS) sets.push(rateSet('prompt tok/s (server)', s.t, s.promptTokS, 5, 'y1'));
      draw(canvas, { type: 'line', data: { datasets: sets }, options: { scales: { x: timeAxis(run),
        y: Object.assign(axis('generated / output tok/s'), { min: 0 }),
        y1: Object.assign(axis('prompt tok/s'), { min: 0, position: 'right', grid: { drawOnChartArea: false } }) } } });
    },
    scatter: function (canvas) {
      var sets = data.runs.map(function (run, i) {
        return { label: run.label, data: xy(run.scatter), borderColor: color(i), backgroundColor: color(i, 0.55), pointRadius: 3 };
      }).filter(function (d) { return d.data.length > 0; });
      draw(canvas, { type: 'scatter', data: { datasets: sets }, options: {
        scales: { x: axis('prompt tokens (server count)'), y: Object.assign(axis('TTFT ms'), { min: 0 }) },
        plugins: { legend: { display: data.runs.length > 1 } } } });
    },
    gaps: function (canvas) {
      var sets = data.runs.map(function (run, i) {
        if (!run.gaps) return null;
        var total = run.gaps.counts.reduce(function (a, b) { return a + b; }, 0) || 1;
        var pts = run.gaps.counts.map(function (c, k) { return { x: run.gaps.edges[k], y: c / total }; });
        pts.push({ x: run.gaps.edges[run.gaps.edges.length - 1], y: 0 });
        return { label: run.label, data: pts, borderColor: color(i), backgroundColor: color(i, 0.25), fill: true, stepped: 'after', pointRadius: 0 };
      }).filter(function (d) { return d !== null; });
      draw(canvas, { type: 'line', data: { datasets: sets }, options: {
        scales: { x: Object.assign(axis('gap between output deltas, ms (log)', 'logarithmic'), { ticks: { callback: logTick, maxRotation: 0, autoSkip: false } }), y: Object.assign(axis('share of positive gaps'), { min: 0 }) },
        plugins: { legend: { display: data.runs.length > 1 } } } });
    },
    sweepLatency: function (canvas) {
      var sw = data.sweep;
      var xs = sw.points.map(function (p) { return p.tokS; }).filter(function (x) { return x !== null; });
      var lo = Math.min.apply(null, xs), hi = Math.max.apply(null, xs);
      var sets = [];
      sw.curves.forEach(function (c, i) {
        sets.push({ label: c.label, data: sw.points.filter(function (p) { return p.tokS !== null && p.series[c.key] !== null; })
          .map(function (p) { return { x: p.tokS, y: p.series[c.key], load: p.load }; }),
          borderColor: color(i), backgroundColor: color(i), pointRadius: 4, showLine: true, tension: 0,
          loadLabels: i === 0 ? (sw.swept === 'rate' ? 'r=' : 'c=') : undefined });
        if (c.threshold !== null) {
          sets.push({ label: 'SLO ' + c.label + ' ≤ ' + c.threshold + ' ms', data: [{ x: lo, y: c.threshold }, { x: hi, y: c.threshold }],
            borderColor: color(i), borderDash: [6, 4], borderWidth: 1.5, pointRadius: 0, showLine: true });
        }
      });
      draw(canvas, { type: 'scatter', data: { datasets: sets }, plugins: [loadLabels], options: {
        scales: { x: axis('output tok/s'), y: Object.assign(axis('latency ms'), { min: 0 }) },
        plugins: { tooltip: { callbacks: { label: function (c) { var l = c.raw.load; return c.dataset.label + (l !== undefined ? ' @ ' + sw.swept + ' ' + l : '') + ': ' + c.raw.y.toFixed(1) + ' ms, ' + c.raw.x.toFixed(1) + ' tok/s'; } } } } } });
    },
    sweepScaling: function (canvas) {
      var sw = data.sweep;
      var pts = sw.points.filter(function (p) { return p.tokS !== null; }).map(function (p) { return { x: p.load, y: p.tokS, load: p.load }; });
      var sets = [{ label: 'output tok/s', data: pts, borderColor: PALETTE[0], backgroundColor: PALETTE[0], pointRadius: 4, showLine: true }];
      var knee = pts.filter(function (p) { return p.x === sw.knee; });
      if (knee.length > 0) sets.push({ label: 'knee', data: knee, pointStyle: 'triangle', pointRadius: 9, borderColor: PALETTE[3], backgroundColor: PALETTE[3] });
      draw(canvas, { type: 'scatter', data: { datasets: sets }, options: {
        scales: { x: axis(sw.swept === 'rate' ? 'offered rate, requests/s' : 'concurrency'), y: Object.assign(axis('output tok/s'), { min: 0 }) } } });
    }
  };

  var canvases = document.querySelectorAll('canvas[data-chart]');
  for (var k = 0; k < canvases.length; k++) builders[canvases[k].dataset.chart](canvases[k]);
})();
`;
