/**
 * The what-if parts of compare.html: each pair's differing scenario fields and its cluster figures side by side, the
 * same cells as the terminal's (./compareWhatIf.ts).
 */
import type { Comparison } from "../src/compare/Compare.js"
import { clusterChange, clusterValue, sideScenarioText } from "./compareWhatIf.js"

const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/** HTML sections (none when no pair differs in scenario and none has a cluster). */
export const whatIfHtml = (c: Comparison): Array<string> => {
  const out: Array<string> = []
  if (c.differentScenarios)
    out.push(`<h2>Scenarios</h2><table><tr><th>side</th><th>scenario</th></tr>${c.sides.map((s) => `<tr><td>${escape(s.label)}</td><td>${escape(sideScenarioText(s))}</td></tr>`).join("")}</table>`)
  for (const p of c.pairs) {
    const pair = `${p.other} vs ${p.baseline}`
    if (p.differences !== undefined)
      out.push(
        `<h2>Scenario fields that differ, ${escape(pair)}</h2>` +
          (p.differences.length === 0
            ? `<p class="muted">The files differ only where the scenario does not (comments, layout).</p>`
            : `<table><tr><th>field</th><th>${escape(p.baseline)}</th><th>${escape(p.other)}</th></tr>${p.differences
                .map((d) => `<tr><td>${escape(d.path)}</td><td>${escape(d.baseline)}</td><td>${escape(d.other)}</td></tr>`)
                .join("")}</table>`)
      )
    if (p.cluster !== undefined) {
      const admission = [p.cluster.admission.baseline && `${p.baseline}: ${p.cluster.admission.baseline}`, p.cluster.admission.other && `${p.other}: ${p.cluster.admission.other}`].filter(Boolean).join(" · ")
      out.push(
        `<h2>Cluster, ${escape(pair)}</h2>` +
          (admission === "" ? "" : `<p class="muted">${escape(admission)}</p>`) +
          `<table><tr><th>figure</th><th>${escape(p.baseline)}</th><th>${escape(p.other)}</th><th>change</th></tr>${p.cluster.rows
            .map((r) => `<tr><td>${escape(r.label)}</td><td class="ratio">${escape(clusterValue(r, r.baseline))}</td><td class="ratio">${escape(clusterValue(r, r.other))}</td><td>${escape(clusterChange(r))}</td></tr>`)
            .join("")}</table>`
      )
    }
  }
  return out
}
