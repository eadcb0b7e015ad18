/**
 * junit.xml of a run's thresholds (`--junit FILE`), the shape CI systems read from k6 and ClusterLoader2:
 * one test case per threshold result (the `outcome:` checks included), a failure per breach, and an
 * error case when the run itself failed or was interrupted.
 */
import { processExitCode, type RunArtifact } from "../src/loadgen/Artifact.js"
import { judgedAtMerge, observedText } from "./summary.js"

const xml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "")

const groupText = (g: Readonly<Record<string, string | undefined>>): string => {
  const parts = Object.entries(g).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v}`)
  return parts.length === 0 ? "" : ` [${parts.join(",")}]`
}

export const renderJunit = (a: RunArtifact): string => {
  const cases: Array<string> = []
  let failures = 0
  let errors = 0
  let skipped = 0
  for (const t of a.thresholds) {
    const name = `${t.threshold}${groupText(t.group)}: ${t.condition}`
    const observed = `observed ${observedText(t)}`
    if (a.segment !== undefined) {
      // a segment's share: the case is the merged run's to judge (docs/distributed.md "One result")
      skipped++
      cases.push(`    <testcase classname="${xml(a.scenario.name)}.thresholds" name="${xml(name)}" time="0"><skipped message="${xml(`${judgedAtMerge} (clustersim merge)`)}"/><system-out>${xml(observed)}</system-out></testcase>`)
    } else if (t.passed) cases.push(`    <testcase classname="${xml(a.scenario.name)}.thresholds" name="${xml(name)}" time="0"><system-out>${xml(observed)}</system-out></testcase>`)
    else {
      failures++
      cases.push(
        `    <testcase classname="${xml(a.scenario.name)}.thresholds" name="${xml(name)}" time="0">\n` +
          `      <failure type="ThresholdBreached" message="${xml(`${t.condition} (${observed})`)}">${xml(`${name} (${observed})`)}</failure>\n    </testcase>`
      )
    }
  }
  if (a.outcome === "run-error" || a.outcome === "interrupted") {
    errors++
    const message = a.outcome === "interrupted" ? "interrupted: partial results" : `run error: ${a.runError ?? "unknown"}`
    cases.push(`    <testcase classname="${xml(a.scenario.name)}.run" name="run completes" time="${(a.durationMs / 1000).toFixed(3)}">\n      <error type="${a.outcome}" message="${xml(message)}"/>\n    </testcase>`)
  }
  const tests = cases.length
  const time = (a.durationMs / 1000).toFixed(3)
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="clustersim" tests="${tests}" failures="${failures}" errors="${errors}" time="${time}">`,
    `  <testsuite name="${xml(`clustersim run ${a.scenario.name}`)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${time}" timestamp="${xml(a.startedAt.replace(/Z$/, ""))}">`,
    `    <properties>`,
    `      <property name="target" value="${xml(a.target.url ? `${a.target.kind} ${a.target.url}` : a.target.kind)}"/>`,
    `      <property name="seed" value="${a.seed}"/>`,
    `      <property name="scenario.sha256" value="${a.scenario.sha256}"/>`,
    `      <property name="exitCode" value="${processExitCode(a)}"/>`,
    `    </properties>`,
    ...cases,
    `  </testsuite>`,
    `</testsuites>`,
    ``
  ].join("\n")
}
