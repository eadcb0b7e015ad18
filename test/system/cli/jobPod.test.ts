/**
 * A distributed run exactly as an Indexed Job's pods would make it (docs/distributed.md "On Kubernetes"), outside a
 * container: the image's runtime (the Dockerfile's second stage — production dependencies only, the compiled CLI,
 * the scenarios) assembled in a directory, `clustersim job` run from it; the manifests accepted by a server-side
 * dry-run and applied with kubectl on `serve --tls` with RBAC as printed (the Job aside: serve has no batch/v1; RBAC in
 * upstream's group, which serve's discovery lists); then each pod's
 * container command — the Job's args as written, `$(RUN_ID)` as the Job's uid — with what a pod sees:
 * `JOB_COMPLETION_INDEX`, `KUBERNETES_SERVICE_HOST/PORT`, the service account's token, ca.crt and namespace (a
 * TokenRequest bound to a pod, as kubelet's projected token is). The token rotates as kubelet rotates it: a new one
 * written over the file while the pod runs, the old one revoked (its pod deleted) once the pod's client has re-read
 * the file (client-go's 50 s), with no failed request; serve's audit log names the pod each request's token is bound
 * to, so it shows the switch. Each token is bound to a pod object of its own for that. Finally `clustersim collect`
 * merges what the pods published. Only the container's mount points differ: /scenario and /tmp are directories here.
 */
import { execFile, spawn } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { Effect, Exit, Scope } from "effect"
import { parseAllDocuments, stringify } from "yaml"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ApiServer } from "../../../simulator/apiserver/ApiServer.js"
import { Audit, Auditor } from "../../../simulator/apiserver/audit/Auditor.js"
import { makePolicyRuleEvaluator } from "../../../simulator/apiserver/audit/PolicyChecker.js"
import { generatePki, kubeconfigText, type GeneratedPki } from "../../../simulator/apiserver/auth/Certificates.js"
import { podNameExtra } from "../../../simulator/apiserver/auth/ServiceAccountTokens.js"
import { serveHttp } from "../../../simulator/apiserver/HttpServer.js"
import { findKubectls, run } from "../compat/support/clients.js"

const execFileAsync = promisify(execFile)
const kubectl = findKubectls().at(-1)!
const root = path.resolve(".")
const work = mkdtempSync(path.join(tmpdir(), "clustersim-jobpod-"))
const image = path.join(work, "image")
const scope = Effect.runSync(Scope.make())
let url = ""
let pki: GeneratedPki
let admin = ""
/** serve's audit log (Metadata level), one event a line. */
const auditLines: Array<string> = []

interface AuditEvent {
  readonly stage: string
  readonly stageTimestamp: string
  readonly user: { readonly username?: string; readonly extra?: Record<string, ReadonlyArray<string>> }
  readonly responseStatus?: { readonly code: number }
}
const auditEvents = (): ReadonlyArray<AuditEvent> => auditLines.map((l) => JSON.parse(l) as AuditEvent).filter((e) => e.stage === "ResponseComplete")
const serviceAccount = "system:serviceaccount:loadtest:pod-load"
/** The pods whose tokens bore the service account's answered requests, from `since` on. */
const boundPodsSeen = (since = 0): ReadonlySet<string> =>
  new Set(
    auditEvents()
      .filter((e) => e.user.username === serviceAccount && Date.parse(e.stageTimestamp) >= since && (e.responseStatus?.code ?? 0) < 300)
      .flatMap((e) => e.user.extra?.[podNameExtra] ?? [])
  )
const waitFor = async (what: string, done: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

const scenario = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: pod-load }
seed: 9
generator:
  rendezvous: { namespace: loadtest, margin: 2s, timeout: 90s }
setup:
  namespaces: [load]
  objects:
    - { name: cms, resource: configmaps, namespace: load, count: 10, template: { data: { k: v } } }
phases:
  - name: steady
    duration: 75s
    actions:
      - { type: constant-arrival-rate, name: gets, rate: 20, maxInFlight: 1000, request: { verb: get, objects: cms } }
outcome: { maxErrorRate: 0 }
`

/**
 * The image's runtime stage: `npm ci --omit=dev --ignore-scripts`, then the built dist and the scenarios. Not
 * synchronous: a minute of blocked event loop times out vitest's worker calls. The install (mostly waiting on the
 * disk and npm's cache) and the compile (a core) touch different directories, so they run side by side.
 */
const assembleImage = async () => {
  mkdirSync(image, { recursive: true })
  for (const f of ["package.json", "package-lock.json"]) cpSync(path.join(root, f), path.join(image, f))
  cpSync(path.join(root, "scenarios"), path.join(image, "scenarios"), { recursive: true })
  await Promise.all([
    execFileAsync("npm", ["ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: image }),
    execFileAsync(path.join(root, "node_modules/.bin/tsc"), ["-p", path.join(root, "tsconfig.json"), "--outDir", path.join(image, "dist")], { cwd: root })
  ])
}

/** The image's entry point with these arguments, in the image's directory. */
const entry = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
  spawn(process.execPath, ["dist/app/cli/main.js", ...args], { cwd: image, env: { PATH: process.env.PATH ?? "", HOME: work, ...env }, stdio: ["ignore", "pipe", "pipe"] })

const finished = (child: ReturnType<typeof entry>): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    child.on("error", reject)
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
  })

const k = (...args: ReadonlyArray<string>) => run(kubectl.path, ["--kubeconfig", admin, ...args], 60_000)

/** serve --tls with RBAC, audited, in this process; its admin kubeconfig. */
const startServer = async () => {
  pki = await Effect.runPromise(generatePki(path.join(work, "pki"), "127.0.0.1"))
  url = await Effect.runPromise(
    Scope.extend(Effect.map(serveHttp({ host: "127.0.0.1", port: 0, admin: false, tls: pki.tls }), (s) => s.url), scope).pipe(
      Effect.provide(ApiServer.layer({ authorizationMode: "RBAC", authentication: { anonymous: false, tokens: new Map() } })),
      Effect.provideService(Audit, new Auditor(makePolicyRuleEvaluator({ kind: "Policy", apiVersion: "audit.k8s.io/v1", rules: [{ level: "Metadata" }] }), { write: (l) => void auditLines.push(l) }, () => BigInt(Date.now()) * 1_000_000n))
    )
  )
  admin = path.join(work, "kubeconfig")
  writeFileSync(admin, kubeconfigText(url, pki))
}

beforeAll(async () => {
  // the server starts while the image is assembled
  await Promise.all([assembleImage(), startServer()])
}, 600_000)

afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

describe("a Job's pods, outside the container", () => {
  it("job manifests applied, two pods' commands meet, publish, and collect merges them", async () => {
    writeFileSync(path.join(work, "s.yaml"), scenario)
    const job = await finished(entry(["job", path.join(work, "s.yaml"), "--segments", "2", "--image", "clustersim:test"]))
    expect(job.code, job.stderr).toBe(0)
    const docs = parseAllDocuments(job.stdout).map((d) => d.toJSON() as { kind: string; metadata: { name: string }; spec?: any })
    expect(docs.map((d) => d.kind)).toEqual(["ConfigMap", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Job"])
    // applied as printed: RBAC in upstream's group, which serve's discovery lists (docs/upstream-names.md)
    const manifests = path.join(work, "served.yaml")
    writeFileSync(manifests, docs.filter((d) => d.kind !== "Job").map((d) => stringify(d)).join("---\n"))
    expect((await k("create", "namespace", "loadtest")).code).toBe(0)
    const dry = await k("apply", "--dry-run=server", "-f", manifests)
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toContain("serviceaccount/pod-load created (server dry run)")
    expect(dry.stdout).toContain("clusterrole.rbac.authorization.k8s.io/loadtest-pod-load-load created (server dry run)")
    const applied = await k("apply", "-f", manifests)
    expect(applied.code, applied.stderr).toBe(0)
    expect(applied.stdout).toContain("rolebinding.rbac.authorization.k8s.io/pod-load-results created")

    /** A token of the service account bound to a pod object of its own (what kubelet's projected tokens are bound to). */
    const podToken = async (pod: string) => {
      const created = await k("run", pod, "-n", "loadtest", "--image", "clustersim:test", "--restart", "Never", "--overrides", JSON.stringify({ spec: { serviceAccountName: "pod-load" } }))
      expect(created.code, created.stderr).toBe(0)
      const t = await k("create", "token", "pod-load", "-n", "loadtest", "--bound-object-kind", "Pod", "--bound-object-name", pod)
      expect(t.code, t.stderr).toBe(0)
      return t.stdout.trim()
    }
    const scenarioMount = path.join(work, "scenario")
    mkdirSync(scenarioMount)
    writeFileSync(path.join(scenarioMount, "scenario.yaml"), scenario)

    const container = docs.find((d) => d.kind === "Job")!.spec.template.spec.containers[0] as { args: Array<string> }
    const port = new URL(url).port
    const oldTokens: Array<string> = []
    const pods: Array<{ sa: string; index: number }> = []
    for (const index of [0, 1]) {
      // the service account's files as kubelet mounts them, one directory a pod
      const sa = path.join(work, `serviceaccount-${index}`)
      mkdirSync(sa)
      oldTokens.push(await podToken(`pod-load-${index}-old`))
      writeFileSync(path.join(sa, "token"), oldTokens[index]!)
      cpSync(pki.caFile, path.join(sa, "ca.crt"))
      writeFileSync(path.join(sa, "namespace"), "loadtest")
      pods.push({ sa, index })
    }
    const running = pods.map(({ sa, index }) => {
      const args = container.args.map((a) =>
        a === "$(RUN_ID)"
          ? "0b6f1e7c-job-uid"
          : a.startsWith("/scenario/")
            ? a.replace(/^\/scenario\//, `${scenarioMount}/`)
            : a.replace(/^\/tmp\//, `${path.join(work, `pod-${index}`)}/`)
      )
      return finished(
        entry(args, { JOB_COMPLETION_INDEX: String(index), KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: port, CLUSTERSIM_SERVICEACCOUNT_DIR: sa })
      )
    })
    // both pods at work with their first tokens
    await waitFor("requests with the first tokens", () => ["pod-load-0-old", "pod-load-1-old"].every((p) => boundPodsSeen().has(p)), 60_000)
    // the tokens rotate: kubelet writes each new one beside the old and renames it over
    for (const { sa, index } of pods) {
      writeFileSync(path.join(sa, "token.new"), await podToken(`pod-load-${index}-new`))
      renameSync(path.join(sa, "token.new"), path.join(sa, "token"))
    }
    // each pod's client re-reads its file within client-go's 50 s
    await waitFor("requests with the rotated tokens", () => ["pod-load-0-new", "pod-load-1-new"].every((p) => boundPodsSeen().has(p)), 70_000)
    // the old tokens revoked: their pods deleted; the server refuses them from now on
    const deleted = await k("delete", "pod", "pod-load-0-old", "pod-load-1-old", "-n", "loadtest")
    expect(deleted.code, deleted.stderr).toBe(0)
    const revokedAt = Date.now()
    const refused = await run(kubectl.path, ["--server", url, "--certificate-authority", pki.caFile, "--token", oldTokens[0]!, "get", "configmaps", "-n", "load"], 60_000)
    expect([refused.code, refused.stderr.trim()]).toEqual([1, "error: You must be logged in to the server (Unauthorized)"])

    const results = await Promise.all(running)
    for (const r of results) {
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).toContain("(in-cluster: the pod's service account in namespace loadtest)")
      expect(r.stderr).toContain("clustersim: segment artifact published to loadtest (1 ConfigMap): clustersim collect pod-load --namespace loadtest")
    }
    // after the revocation the pods went on with the new tokens only
    expect([...boundPodsSeen(revokedAt)].sort()).toEqual(["pod-load-0-new", "pod-load-1-new"])

    const collected = await finished(entry(["collect", "pod-load", "--namespace", "loadtest", "--kubeconfig", admin, "--out", path.join(work, "collected")]))
    expect(collected.code, collected.stderr).toBe(0)
    const merged = JSON.parse(readFileSync(path.join(work, "collected", "run.json"), "utf8"))
    const gets = merged.series.find((s: { key: { name?: string } }) => s.key.name === "gets")
    expect(gets.count + gets.dropped).toBe(20 * 75)
    // not one request failed across the rotation and the revocation
    expect(gets.errors).toBe(0)
    expect(merged.segments.map((s: { index: number; outcome: string }) => [s.index, s.outcome])).toEqual([
      [0, "pass"],
      [1, "pass"]
    ])
  }, 600_000)
})
