/**
 * The replay system tests' processes: `clustersim serve` and other CLI commands as their own processes (from the
 * sources, as test/support/cliProcess.ts runs them), the audit log read back, and the replay report of a run.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { ReplayReport, RunArtifact } from "../../../src/loadgen/Artifact.js"

const viteNode = "node_modules/.bin/vite-node"

export interface Served {
  readonly child: ChildProcess
  readonly url: string
  /** What serve wrote on stderr so far. */
  readonly stderr: () => string
}

/** `clustersim serve --port 0 …args`, resolved once it listens. */
export const serve = (args: ReadonlyArray<string> = []): Promise<Served> =>
  new Promise((resolve, reject) => {
    const child = spawn(viteNode, ["test/support/cliProcess.ts", "serve", "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stderr!.on("data", (d: Buffer) => void (err += d.toString()))
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString()
      const m = /listening on (https?:\/\/\S+)/.exec(out)
      if (m) resolve({ child, url: m[1]!, stderr: () => err })
    })
    child.once("exit", (code) => reject(new Error(`serve exited (${code}): ${out} ${err}`)))
  })

export const stop = (s: Served | undefined): Promise<void> =>
  s === undefined || s.child.exitCode !== null || s.child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => (s.child.once("exit", () => resolve()), s.child.kill("SIGTERM")))

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** A `clustersim` command to its end. */
export const cli = (args: ReadonlyArray<string>): Promise<CliResult> =>
  new Promise((resolve) => {
    const child = spawn(viteNode, ["test/support/cliProcess.ts", ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (d: Buffer) => void (stdout += d.toString()))
    child.stderr!.on("data", (d: Buffer) => void (stderr += d.toString()))
    child.once("exit", (code) => resolve({ code: code ?? -1, stdout, stderr }))
  })

/** The replay action's report of the run written to `out`. */
export const replayReportOf = (out: string): ReplayReport => {
  const a = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as RunArtifact
  return a.actions.find((x) => x.replay)!.replay!
}

export type AuditEvent = Record<string, any>

/** Every event of a JSON-lines audit log. */
export const auditEvents = (file: string): Array<AuditEvent> =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as AuditEvent)

/** One event per request (upstream's stages of one auditID): its ResponseComplete, else its last stage. */
export const requestsOf = (events: ReadonlyArray<AuditEvent>): Array<AuditEvent> => {
  const byId = new Map<string, AuditEvent>()
  for (const e of events) {
    if (e.stage === "RequestReceived") continue
    const had = byId.get(e.auditID)
    if (had === undefined || e.stage === "ResponseComplete" || e.stage === "Panic") byId.set(e.auditID, e)
  }
  return [...byId.values()]
}

/** `verb resource[/subresource] code` → how many, the request mix a replay must reproduce. */
export const requestMix = (requests: ReadonlyArray<AuditEvent>, withCode = true): Record<string, number> => {
  const mix: Record<string, number> = {}
  for (const e of requests) {
    const r = e.objectRef?.resource === undefined ? e.requestURI.split("?")[0] : `${e.objectRef.resource}${e.objectRef.subresource ? `/${e.objectRef.subresource}` : ""}`
    const k = `${e.verb} ${r}${withCode ? ` ${e.responseStatus?.code ?? "-"}` : ""}`
    mix[k] = (mix[k] ?? 0) + 1
  }
  return Object.fromEntries(Object.entries(mix).sort(([a], [b]) => a.localeCompare(b)))
}

/** A policy file: every request at `level`, the RequestReceived stage left out. */
export const writePolicy = (path: string, level = "RequestResponse"): string => {
  writeFileSync(path, ["apiVersion: audit.k8s.io/v1", "kind: Policy", "omitStages: [RequestReceived]", "rules:", `- level: ${level}`, ""].join("\n"))
  return path
}

export const until = async (what: () => boolean | Promise<boolean>, ms: number): Promise<boolean> => {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await what()) return true
    await new Promise((r) => setTimeout(r, 200))
  }
  return false
}
