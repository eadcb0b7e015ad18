/**
 * The round trip of issue 41: a session recorded on `clustersim serve --nodes 3 --audit-log-path … ` with a
 * RequestResponse policy — kubectl (create namespace, apply, create, get, list, patch, label, scale, delete) and the
 * live cluster's own traffic (node agents, scheduler, node lifecycle and workload controllers) — replayed with
 * `clustersim replay` against a fresh `serve` (no live cluster: the log is its only client) which records too. The
 * replay gets every recorded code, the second log has the first one's request mix (verb, resource, code), and the
 * objects the session left are there again, equal in what a user sees (data, labels, annotations, spec; pods'
 * phase), not in what the server chose (uid, resourceVersion, times, managedFields).
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ReplayReport } from "../../../src/loadgen/Artifact.js"
import { findKubectls, run } from "../compat/support/clients.js"
import { type AuditEvent, auditEvents, cli, replayReportOf, requestMix, requestsOf, serve, type Served, stop, until, writePolicy } from "./processes.js"

const kubectl = findKubectls().at(-1)
const dir = mkdtempSync(join(tmpdir(), "replay-roundtrip-"))
const policy = writePolicy(join(dir, "policy.yaml"))
const recordedLog = join(dir, "recorded.log")
const replayedLog = join(dir, "replayed.log")

type Json = Record<string, any>

/** What a user sees of an object: not the server's uid, resourceVersion, times, managedFields, generation, status. */
const visible = (o: Json): Json => ({
  name: o.metadata.name,
  ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
  labels: o.metadata.labels ?? {},
  annotations: o.metadata.annotations ?? {},
  ownerReferences: (o.metadata.ownerReferences ?? []).map((r: Json) => `${r.kind}/${r.name}`),
  ...(o.data ? { data: o.data } : {}),
  ...(o.spec ? { spec: o.spec } : {}),
  ...(o.kind === "Pod" || o.kind === undefined ? { phase: o.status?.phase } : {})
})

/** The objects the session is about, by list URI, each list sorted by name. */
const collections = [
  "/api/v1/namespaces/rt/configmaps",
  "/apis/apps/v1/namespaces/rt/deployments",
  "/apis/apps/v1/namespaces/rt/replicasets",
  "/api/v1/namespaces/rt/pods",
  "/api/v1/nodes"
]

const snapshot = async (url: string): Promise<Record<string, Array<Json>>> => {
  const out: Record<string, Array<Json>> = {}
  for (const c of collections) {
    const res = await fetch(`${url}${c}`)
    expect(res.status, c).toBe(200)
    const list = (await res.json()) as { items: Array<Json> }
    out[c] = list.items.map(visible).sort((a, b) => a.name.localeCompare(b.name))
  }
  return out
}

const configMap = (name: string, data: Record<string, string>) =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { app: "rt" } }, data })

let recorded: Served | undefined
let replayTarget: Served | undefined
let before: Record<string, Array<Json>> = {}
let recordedRequests: Array<AuditEvent> = []

beforeAll(async () => {
  expect(kubectl, "no kubectl on this machine").toBeDefined()
  // the replay's target starts beside the recording one (its log has only the run's probes until the replay)
  const target = serve(["--audit-log-path", replayedLog, "--audit-policy-file", policy])
  recorded = await serve(["--nodes", "3", "--audit-log-path", recordedLog, "--audit-policy-file", policy])
  const url = recorded.url
  const k = async (...args: Array<string>) => {
    const r = await run(kubectl!.path, ["--server", url, "--cache-dir", join(dir, "kube-cache"), ...args])
    expect(r.code, `kubectl ${args.join(" ")}: ${r.stderr}`).toBe(0)
    return r.stdout
  }
  // the nodes registered, so the deployment's pods get scheduled
  await until(async () => ((await (await fetch(`${url}/api/v1/nodes`)).json()) as { items: Array<unknown> }).items.length === 3, 20_000)
  const manifest = join(dir, "settings.yaml")
  writeFileSync(manifest, configMap("settings", { mode: "fast", level: "3" }))
  await k("create", "namespace", "rt")
  await k("apply", "-n", "rt", "-f", manifest)
  await k("create", "configmap", "scratch", "-n", "rt", "--from-literal=x=y")
  await k("create", "deployment", "web", "-n", "rt", "--image=registry.k8s.io/pause:3.9", "--replicas=2")
  await k("get", "configmaps", "-n", "rt")
  await k("get", "configmap", "settings", "-n", "rt", "-o", "yaml")
  await k("patch", "configmap", "settings", "-n", "rt", "-p", '{"data":{"level":"4"}}')
  await k("label", "configmap", "settings", "-n", "rt", "tier=front")
  writeFileSync(manifest, configMap("settings", { mode: "slow", level: "4", extra: "1" }))
  await k("apply", "-n", "rt", "-f", manifest)
  await k("scale", "deployment", "web", "-n", "rt", "--replicas=3")
  await k("delete", "configmap", "scratch", "-n", "rt")
  await k("get", "deployments,replicasets,pods", "-n", "rt", "-o", "wide")
  // the cluster's answer to the session: three pods scheduled and running
  const running = async () => {
    const pods = ((await (await fetch(`${url}/api/v1/namespaces/rt/pods`)).json()) as { items: Array<Json> }).items
    return pods.length === 3 && pods.every((p) => p.status?.phase === "Running")
  }
  expect(await until(running, 30_000), "the deployment's pods did not run").toBe(true)
  before = await snapshot(url)
  await stop(recorded)
  recordedRequests = requestsOf(auditEvents(recordedLog))
  replayTarget = await target
}, 120_000)

afterAll(async () => {
  await stop(recorded)
  await stop(replayTarget)
})

describe("a session on serve, replayed against a fresh serve", () => {
  let report: ReplayReport
  let replayedRequests: Array<AuditEvent> = []

  it("records kubectl's and the live cluster's requests", () => {
    const users = new Set(recordedRequests.map((e) => e.user.username))
    for (const u of ["system:anonymous", "system:node:node-0", "system:platform-scheduler", "system:kube-controller-manager"]) expect(users, u).toContain(u)
    const mix = requestMix(recordedRequests.filter((e) => e.userAgent?.startsWith("kubectl")))
    expect(mix).toMatchObject({ "create namespaces 201": 1, "create configmaps 201": 2, "patch configmaps 200": 3, "delete configmaps 200": 1, "patch deployments/scale 200": 1 })
    expect(before["/api/v1/namespaces/rt/pods"]).toHaveLength(3)
  })

  it("replays every request with its recorded code", async () => {
    const out = join(dir, "replay")
    const r = await cli(["replay", "--target", replayTarget!.url, "--speed", "2", "--out", out, recordedLog])
    report = replayReportOf(out)
    expect(report.mismatches, r.stdout).toEqual([])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(report.requests).toMatchObject({ sent: recordedRequests.length, mismatched: 0, connectionErrors: 0, dropped: 0, synthesized: 0 })
    expect(report.requests.matched).toBe(recordedRequests.length)
    expect(report.seeding.failed).toBe(0)
  }, 60_000)

  it("the target's own audit log shows the recorded request mix", () => {
    expect(report, "the replay ran").toBeDefined()
    // the replayer's requests (its seeding first); the run's probes (/version, /metrics) carry no user agent
    const all = requestsOf(auditEvents(replayedLog)).filter((e) => e.userAgent === "clustersim/0.1")
    const seeding = all.slice(0, report.seeding.namespaces + report.seeding.objects)
    replayedRequests = all.slice(seeding.length)
    expect(seeding.every((e) => e.verb === "create")).toBe(true)
    // the differences a replay explains: a recorded 304 (kubectl's cached OpenAPI, If-None-Match not in the log) is
    // asked again unconditionally; a Lease update is sent with the target's resourceVersion, read first
    const expected = requestMix(recordedRequests.map((e) => (e.responseStatus?.code === 304 ? { ...e, responseStatus: { code: 200 } } : e)))
    const leaseUpdates = recordedRequests.filter((e) => e.verb === "update" && e.objectRef?.resource === "leases").length
    expect(leaseUpdates).toBeGreaterThan(0)
    expected["get leases 200"] = (expected["get leases 200"] ?? 0) + leaseUpdates
    expect(requestMix(replayedRequests)).toEqual(expected)
  })

  it("leaves the objects the session left", async () => {
    expect(await snapshot(replayTarget!.url)).toEqual(before)
  })
})
