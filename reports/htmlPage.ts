/**
 * The shell of every HTML report (report.html, compare.html, sweep.html): one self-contained page with uPlot 1.6.32
 * (JS and CSS) inlined so it opens with no network, the plots' data as JSON, and the client-side script that draws
 * them (./html.ts shapes the data; this draws it).
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)
let uplotAssets: { js: string; css: string } | undefined
const uplot = () =>
  (uplotAssets ??= {
    js: readFileSync(require.resolve("uplot/dist/uPlot.iife.min.js"), "utf8"),
    css: readFileSync(require.resolve("uplot/dist/uPlot.min.css"), "utf8")
  })

export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)
/** JSON inside <script>: no `</script>` or `<!--` can end it early. */
const scriptJson = (v: unknown): string => JSON.stringify(v).replace(/</g, "\\u003c")

/** Client side: builds the uPlot charts from the embedded data and lists them in `window.clustersimPlots`. */
const clientScript = String.raw`
(function () {
  var data = JSON.parse(document.getElementById("clustersim-data").textContent);
  var palette = ["#1f77b4","#d62728","#2ca02c","#ff7f0e","#9467bd","#8c564b","#e377c2","#17becf","#7f7f7f","#bcbd22","#393b79","#ad494a","#637939","#8c6d31","#7b4173","#3182bd","#e6550d","#31a354","#756bb1","#636363"];
  var plots = window.clustersimPlots = [];
  // one style per series in every chart (reports/palette.ts); charts whose series are all in the latency chart
  // leave their legend to it, and a series shown or hidden there is shown or hidden in them too
  var styles = data.styles || {};
  var legends = data.legends || {};
  var shared = [];
  function styleOf(label, i) { return styles[label] || { color: palette[i % palette.length], dash: [] }; }
  var syncHook = { setSeries: [function (u, i, opts) {
    if (i == null || opts.show === undefined) return;
    var label = u.series[i].label;
    shared.forEach(function (o) {
      if (o === u) return;
      for (var j = 1; j < o.series.length; j++) if (o.series[j].label === label && o.series[j].show !== opts.show) o.setSeries(j, { show: opts.show });
    });
  }] };
  function withHooks(a, b) { var out = {}; [a, b].forEach(function (h) { Object.keys(h || {}).forEach(function (k) { out[k] = (out[k] || []).concat(h[k]); }); }); return out; }
  // as ./format.ts's formatMs: three significant figures, no trailing zeros after the point
  function sig(v) { return v >= 1000 ? v.toFixed(0) : v.toPrecision(3).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, ""); }
  function fmtMs(v) { if (v == null) return "—"; if (v === 0) return "0"; if (v < 1) return sig(v * 1000) + "µs"; if (v < 1000) return sig(v) + "ms"; return sig(v / 1000) + "s"; }
  function width(el) { return Math.max(480, el.clientWidth || 900); }
  // a label longer than its room (to the next marker, or the plot's right edge) is cut with "…"
  function fitText(ctx, text, room) {
    if (ctx.measureText(text).width <= room) return text;
    var n = text.length;
    while (n > 0 && ctx.measureText(text.slice(0, n) + "…").width > room) n--;
    return n > 0 ? text.slice(0, n) + "…" : "";
  }
  function markerHook(markers) {
    return { draw: [function (u) {
      var ctx = u.ctx; ctx.save();
      var right = u.bbox.left + u.bbox.width;
      var xs = markers.map(function (m) { return u.valToPos(m.t, "x", true); });
      markers.forEach(function (m, i) {
        var x = xs[i];
        if (x < u.bbox.left || x > right) return;
        ctx.strokeStyle = m.kind === "fault" ? "#d62728" : "#888"; ctx.setLineDash(m.kind === "fault" ? [2, 2] : [6, 4]);
        ctx.beginPath(); ctx.moveTo(x, u.bbox.top); ctx.lineTo(x, u.bbox.top + u.bbox.height); ctx.stroke();
        // uPlot leaves the context right-aligned from its y axis: a label drawn so ran left over the axis's tick labels
        ctx.textAlign = "left"; ctx.textBaseline = "alphabetic";
        ctx.fillStyle = ctx.strokeStyle; ctx.font = (11 * devicePixelRatio) + "px sans-serif";
        var next = right;
        for (var j = i + 1; j < xs.length; j++) if (xs[j] > x + 1) { next = Math.min(right, xs[j]); break; }
        ctx.fillText(fitText(ctx, m.label, next - x - 6), x + 3, u.bbox.top + 12 * devicePixelRatio);
      });
      ctx.restore();
    }] };
  }
  function plot(id, title, opts, aligned) {
    var el = document.getElementById(id);
    if (!el) return;
    opts.title = title; opts.width = width(el); opts.height = opts.height || 320;
    // a chart drawn with the latency chart's series has no legend of its own (data.legends, set by the page)
    var legend = legends[id] || "own";
    var sharing = id === "latency" || legend === "latency" || legend === "partial";
    if (legend === "latency") opts.legend = { show: false };
    if (sharing) opts.hooks = withHooks(opts.hooks, syncHook);
    var info = { id: id, title: title, legend: legend, series: opts.series.slice(1).map(function (s) { return s.label; }), points: aligned.slice(1).map(function (col) { return col.filter(function (v) { return v != null; }).length; }), x: null };
    // the x range as drawn (uPlot sets its scales after the constructor returns)
    opts.hooks = withHooks(opts.hooks, { setScale: [function (u, key) { if (key === "x") info.x = [u.scales.x.min, u.scales.x.max]; }] });
    var u = new uPlot(opts, aligned, el);
    if (sharing) shared.push(u);
    if (legend === "partial") {
      // the rows of series the latency chart's legend already lists are left out (row 0 is the x value)
      var inLatency = {};
      (ts && ts.series || []).forEach(function (s) { inLatency[s.label] = true; });
      var rows = el.querySelectorAll(".u-legend .u-series");
      for (var j = 1; j < opts.series.length && j < rows.length; j++) if (inLatency[opts.series[j].label]) rows[j].style.display = "none";
    }
    plots.push(info);
    return u;
  }
  function lines(labels, valueFmt) {
    return [{ label: "t (s)" }].concat(labels.map(function (l, i) {
      var st = styleOf(l, i);
      return { label: l, stroke: st.color, width: 1.5, dash: st.dash.length ? st.dash : undefined, spanGaps: false, value: function (u, v) { return valueFmt(v); } };
    }));
  }

  var modelled = data.modelled ? " — " + data.modelled : "";
  var ts = data.timeSeries;
  if (ts && ts.series.length > 0) {
    var labels = ts.series.map(function (s) { return s.label; });
    var markers = data.markers || [];
    plot("latency", "Latency over time: p99 per series (log scale; gaps where a series had no samples)" + modelled, {
      scales: { x: { time: false }, y: { distr: 3 } }, axes: [{ label: "seconds" }, { label: "ms", values: function (u, vs) { return vs.map(fmtMs); } }],
      series: lines(labels, fmtMs), hooks: markerHook(markers), legend: { live: true }
    }, [ts.x].concat(ts.series.map(function (s) { return s.p99; })));
    plot("throughput", "Throughput: operations answered without an error per second (failures in the errors chart; series as in the latency chart's legend)", {
      scales: { x: { time: false } }, axes: [{ label: "seconds" }, { label: "ops/s" }], series: lines(labels, function (v) { return v == null ? "—" : v.toFixed(1); }), hooks: markerHook(markers), height: 240
    }, [ts.x].concat(ts.series.map(function (s) { return s.succeeded; })));
    var sum = function (key) { return ts.x.map(function (_, i) { var n = null; ts.series.forEach(function (s) { if (s[key][i] != null) n = (n || 0) + s[key][i]; }); return n; }); };
    plot("errors", "Failed operations (error answers and no answer) and dropped iterations per interval (all series)", {
      scales: { x: { time: false } }, axes: [{ label: "seconds" }, { label: "count" }], series: [{ label: "t (s)" }, { label: "errors", stroke: "#d62728", width: 1.5, spanGaps: false }, { label: "dropped iterations", stroke: "#ff7f0e", width: 1.5, spanGaps: false }], hooks: markerHook(markers), height: 200
    }, [ts.x, sum("errors"), sum("dropped")]);
  }
  function spectrumPlot(id, title, sp, own) {
    var pct = function (x) { if (!(x >= 1)) return ""; var p = 100 * (1 - 1 / x); return p === 0 ? "0%" : (Math.round(p * 1000) / 1000) + "%"; };
    var xmax = 10;
    sp.series.forEach(function (s) { s.y.forEach(function (v, i) { if (v != null && sp.x[i] > xmax) xmax = sp.x[i]; }); });
    xmax = Math.pow(10, Math.ceil(Math.log10(xmax) - 1e-9));
    var decades = []; for (var d = 1; d <= xmax; d *= 10) decades.push(d);
    var note = legends[id] === "latency" ? " (series as in the latency chart's legend)" : legends[id] === "partial" ? " (series of the latency chart as in its legend)" : "";
    return plot(id, title + note, {
      scales: { x: { time: false, distr: 3, range: [1, xmax] }, y: { distr: 3 } },
      axes: [{ label: "percentile (1/(1−p), log)", splits: function () { return decades; }, values: function (u, vs) { return vs.map(pct); } }, { label: "latency", values: function (u, vs) { return vs.map(fmtMs); } }],
      series: [{ label: "percentile", value: function (u, v) { return v == null ? "—" : pct(v); } }].concat(sp.series.map(function (s, i) {
        var st = own === true ? styleOf(s.label, i) : { color: palette[i % palette.length], dash: s.dash || [] };
        return { label: s.label, stroke: st.color, width: 1.5, dash: st.dash.length ? st.dash : undefined, value: function (u, v) { return fmtMs(v); } };
      }))
    }, [sp.x].concat(sp.series.map(function (s) { return s.y; })));
  }
  if (data.spectrum && data.spectrum.series.length > 0) spectrumPlot("spectrum", "Latency by percentile (HdrHistogram spectrum, log axes)" + modelled, data.spectrum, true);
  (data.spectra || []).forEach(function (sp, i) { spectrumPlot("spectrum-" + i, sp.title, sp); });
  // a figure at a few points of x (a comparison's rounds, a sweep's parameter values), one line per series; x either
  // numbers or names (xNames) at 1, 2, …
  function fmtUnit(unit, v) {
    if (v == null) return "—";
    if (unit === "ms") return fmtMs(v);
    if (unit === "per-second") return v.toFixed(1) + "/s";
    if (unit === "bytes") return (v / 1048576).toFixed(1) + " MiB";
    return Number.isInteger(v) ? String(v) : v.toFixed(2);
  }
  function pointsPlot(id, p) {
    var xText = function (v) { return p.xNames ? (p.xNames[v - 1] || "") : String(v); };
    return plot(id, p.title, {
      scales: { x: { time: false }, y: p.log ? { distr: 3 } : { range: function (u, lo, hi) { return [Math.min(0, lo), hi > 0 ? hi * 1.1 : 1]; } } }, height: 240,
      axes: [{ label: p.xLabel, splits: function () { return p.x; }, values: function (u, vs) { return vs.map(xText); } }, { label: p.yLabel, size: 70, values: function (u, vs) { return vs.map(function (v) { return fmtUnit(p.unit, v); }); } }],
      series: [{ label: p.xLabel, value: function (u, v) { return v == null ? "—" : xText(v); } }].concat(p.series.map(function (s) { return { label: s.label, stroke: palette[s.color % palette.length], width: 1.5, dash: s.dash, spanGaps: false, points: { show: true, size: 6 }, value: function (u, v) { return fmtUnit(p.unit, v); } }; }))
    }, [p.x].concat(p.series.map(function (s) { return s.y; })));
  }
  (data.rounds || []).forEach(function (rp, i) {
    pointsPlot("rounds-" + i, { title: rp.title, x: rp.x, xLabel: "round", yLabel: "latency", unit: "ms", log: true, series: rp.series.map(function (s) { return { label: s.label, color: s.side, y: s.y, dash: s.dash }; }) });
  });
  (data.sweep || []).forEach(function (sp, i) { pointsPlot("sweep-" + i, sp); });
  var cc = data.clusterCharts;
  if (cc && cc.lease) {
    var note = cc.modelled ? " — modelled" : "";
    var lm = cc.markers || [];
    plot("lease-latency", "Node lease renew latency per " + (cc.lease.x[1] || 1) + " s: p50 and p99 (log scale)" + note, {
      scales: { x: { time: false }, y: { distr: 3 } }, height: 240, hooks: markerHook(lm),
      axes: [{ label: "seconds" }, { label: "latency", values: function (u, vs) { return vs.map(fmtMs); } }],
      series: [{ label: "t (s)" }, { label: "renew p99", stroke: "#882255", width: 1.5, spanGaps: false, value: function (u, v) { return fmtMs(v); } }, { label: "renew p50", stroke: "#44AA99", width: 1.5, dash: [6, 3], spanGaps: false, value: function (u, v) { return fmtMs(v); } }]
    }, [cc.lease.x, cc.lease.renewP99, cc.lease.renewP50]);
    plot("lease-writes", "Node lease writes and failed lease requests per second", {
      scales: { x: { time: false } }, height: 220, hooks: markerHook(lm), axes: [{ label: "seconds" }, { label: "per second" }],
      series: [{ label: "t (s)" }, { label: "lease writes/s", stroke: "#332288", width: 1.5, value: function (u, v) { return v == null ? "—" : v.toFixed(2); } }, { label: "failed lease requests/s", stroke: "#CC6677", width: 1.5, value: function (u, v) { return v == null ? "—" : v.toFixed(2); } }]
    }, [cc.lease.x, cc.lease.writesPerSecond, cc.lease.failuresPerSecond]);
  }
  if (cc && cc.ready) {
    plot("ready-nodes", "Ready nodes over time", {
      scales: { x: { time: false }, y: { range: function (u, lo, hi) { return [0, Math.max(1, hi)]; } } }, height: 220, hooks: markerHook(cc.markers || []),
      axes: [{ label: "seconds" }, { label: "nodes" }],
      series: [{ label: "t (s)" }, { label: "Ready nodes", stroke: "#117733", width: 2, paths: uPlot.paths.stepped({ align: 1 }), value: function (u, v) { return v == null ? "—" : String(v); } }]
    }, [cc.ready.x, cc.ready.y]);
  }
  var tl = data.timeline;
  if (tl && tl.events.length > 0) {
    // from 0 to the run's end (no event at either): the axis spans the run, not only its events
    var xs = [0].concat(tl.events.map(function (e) { return e.t; }), [Math.max(tl.end, tl.events[tl.events.length - 1].t)]);
    var cols = tl.lanes.map(function (_, lane) { return [null].concat(tl.events.map(function (e) { return e.lane === lane ? lane : null; }), [null]); });
    var labelsAt = [""].concat(tl.events.map(function (e) { return e.label; }), [""]);
    plot("timeline", "Cluster timeline (virtual seconds)", {
      scales: { x: { time: false }, y: { range: [-0.5, tl.lanes.length - 0.5] } }, height: 260,
      axes: [{ label: "seconds" }, { size: 120, splits: function () { return tl.lanes.map(function (_, i) { return i; }); }, values: function (u, vs) { return vs.map(function (v) { return tl.lanes[v] || ""; }); } }],
      series: [{ label: "t (s)", value: function (u, v, si, i) { return i == null ? "—" : v + "s " + labelsAt[i]; } }].concat(tl.lanes.map(function (l, i) { return { label: l, stroke: palette[i], paths: function () { return null; }, points: { show: true, size: 8, fill: palette[i] } }; }))
    }, [xs].concat(cols));
  }
  document.body.setAttribute("data-plots", String(plots.length));
})();
`

/** A self-contained page: `body`, the plots' data and the script that draws them (uPlot inlined). */
export const page = (title: string, body: string, data: unknown): string => {
  const { js, css } = uplot()
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${css}</style>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:28px 0 8px}
.pass{color:#2ca02c}.fail{color:#d62728} .muted{color:#666} .ratio{white-space:nowrap} .modelled{color:#8c564b}
ul.breached{margin:2px 0 0;padding:0;list-style:none;text-align:left;font-size:12px;color:#444}
table{border-collapse:collapse;font-size:13px} th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:right} th:first-child,td:first-child{text-align:left}
pre{background:#f6f6f6;padding:10px;overflow:auto;font-size:12px} .plot{margin:8px 0 20px}
.u-inline tr{white-space:nowrap} .u-inline .u-label{white-space:normal;max-width:min(70ch,60vw);text-align:left}
</style></head><body>
${body}
<script id="clustersim-data" type="application/json">${scriptJson(data)}</script>
<script>${js.replace(/<\/script/gi, "<\\/script")}</script>
<script>${clientScript}</script>
</body></html>
`
}
