/**
 * A distributed run exactly as an Indexed Job's pods would make it (docs/distributed.md "On Kubernetes"), outside a
 * container: the image's runtime (the Dockerfile's second stage — production dependencies only, the compiled CLI,
 * the scenarios) assembled in a directory, `clustersim job` run from it; the manifests accepted by a server-side
 * dry-run and applied with kubectl on `serve --tls` with RBAC (the Job aside: serve has no batch/v1; RBAC by the spec's
 * group name, which serve's discovery lists); then each pod's
 * container command — the Job's args as written, `$(RUN_ID)` as the Job's uid — with what a pod sees:
 * `JOB_COMPLETION_INDEX`, `KUBERNETES_SERVICE_HOST/PORT`, the service account's token, ca.crt and namespace (from the
 * ServiceAccount's own TokenRequest), its token file replaced mid-run; finally `clustersim collect` merges what the
 * pods published. Only the container's mount points differ: /scenario and /tmp are directories here.
 */
import { execFileSync, spawn } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { Effect, Exit, Scope } from "effect"
import { parseAllDocuments } from "yaml"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ApiServer } from "../../../simulator/apiserver/ApiServer.js"
import { generatePki, kubeconfigText, type GeneratedPki } from "../../../simulator/apiserver/auth/Certificates.js"
import { serveHttp } from "../../../simulator/apiserver/HttpServer.js"
import { findKubectls, run } from "../compat/support/clients.js"

const kubectl = findKubectls().at(-1)!
const root = path.resolve(".")
const work = mkdtempSync(path.join(tmpdir(), "clustersim-jobpod-"))
const image = path.join(work, "image")
const scope = Effect.runSync(Scope.make())
let url = ""
let pki: GeneratedPki
let admin = ""

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
    duration: 8s
    actions:
      - { type: constant-arrival-rate, name: gets, rate: 20, maxInFlight: 1000, request: { verb: get, objects: cms } }
outcome: { maxErrorRate: 0 }
`

/** The image's runtime stage: `npm ci --omit=dev --ignore-scripts`, then the built dist and the scenarios. */
const assembleImage = () => {
  mkdirSync(image, { recursive: true })
  for (const f of ["package.json", "package-lock.json"]) cpSync(path.join(root, f), path.join(image, f))
  execFileSync("npm", ["ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: image, stdio: "ignore" })
  execFileSync(path.join(root, "node_modules/.bin/tsc"), ["-p", path.join(root, "tsconfig.json"), "--outDir", path.join(image, "dist")], { cwd: root, stdio: "inherit" })
  cpSync(path.join(root, "scenarios"), path.join(image, "scenarios"), { recursive: true })
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

beforeAll(async () => {
  assembleImage()
  pki = await Effect.runPromise(generatePki(path.join(work, "pki"), "127.0.0.1"))
  url = await Effect.runPromise(
    Scope.extend(Effect.map(serveHttp({ host: "127.0.0.1", port: 0, admin: false, tls: pki.tls }), (s) => s.url), scope).pipe(
      Effect.provide(ApiServer.layer({ authorizationMode: "RBAC", authentication: { anonymous: false, tokens: new Map() } }))
    )
  )
  admin = path.join(work, "kubeconfig")
  writeFileSync(admin, kubeconfigText(url, pki))
}, 600_000)

afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

describe("a Job's pods, outside the container", () => {
  it("job manifests applied, two pods' commands meet, publish, and collect merges them", async () => {
    writeFileSync(path.join(work, "s.yaml"), scenario)
    const job = await finished(entry(["job", path.join(work, "s.yaml"), "--segments", "2", "--image", "clustersim:test"]))
    expect(job.code, job.stderr).toBe(0)
    const docs = parseAllDocuments(job.stdout).map((d) => d.toJSON() as { kind: string; metadata: { name: string }; spec?: any })
    expect(docs.map((d) => d.kind)).toEqual(["ConfigMap", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Job"])
    // serve's discovery names RBAC by the spec's group (docs/upstream-names.md: the .k8s.io alias is served by path only)
    const served = docs.filter((d) => d.kind !== "Job").map((d) => JSON.parse(JSON.stringify(d).replaceAll("rbac.authorization.k8s.io", "rbac.authorization.platform")))
    const manifests = path.join(work, "served.yaml")
    writeFileSync(manifests, served.map((d) => JSON.stringify(d)).join("\n---\n"))
    expect((await k("create", "namespace", "loadtest")).code).toBe(0)
    const dry = await k("apply", "--dry-run=server", "-f", manifests)
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toContain("serviceaccount/pod-load created (server dry run)")
    const applied = await k("apply", "-f", manifests)
    expect(applied.code, applied.stderr).toBe(0)

    // the service account's files as kubelet mounts them
    const sa = path.join(work, "serviceaccount")
    mkdirSync(sa)
    const token = async () => {
      const t = await k("create", "token", "pod-load", "-n", "loadtest")
      expect(t.code, t.stderr).toBe(0)
      return t.stdout.trim()
    }
    writeFileSync(path.join(sa, "token"), await token())
    cpSync(pki.caFile, path.join(sa, "ca.crt"))
    writeFileSync(path.join(sa, "namespace"), "loadtest")
    const scenarioMount = path.join(work, "scenario")
    mkdirSync(scenarioMount)
    writeFileSync(path.join(scenarioMount, "scenario.yaml"), scenario)

    const container = docs.find((d) => d.kind === "Job")!.spec.template.spec.containers[0] as { args: Array<string> }
    const port = new URL(url).port
    const pods = [0, 1].map((index) => {
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
    // a projected token rotates: the file is replaced while the pods run
    await new Promise((r) => setTimeout(r, 4000))
    writeFileSync(path.join(sa, "token.new"), await token())
    execFileSync("mv", [path.join(sa, "token.new"), path.join(sa, "token")])
    const results = await Promise.all(pods)
    for (const r of results) {
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).toContain("(in-cluster: the pod's service account in namespace loadtest)")
      expect(r.stderr).toContain("clustersim: segment artifact published to loadtest (1 ConfigMap): clustersim collect pod-load --namespace loadtest")
    }

    const collected = await finished(entry(["collect", "pod-load", "--namespace", "loadtest", "--kubeconfig", admin, "--out", path.join(work, "collected")]))
    expect(collected.code, collected.stderr).toBe(0)
    const merged = JSON.parse(readFileSync(path.join(work, "collected", "run.json"), "utf8"))
    const gets = merged.series.find((s: { key: { name?: string } }) => s.key.name === "gets")
    expect(gets.count + gets.dropped).toBe(160)
    expect(gets.errors).toBe(0)
    expect(merged.segments.map((s: { index: number; outcome: string }) => [s.index, s.outcome])).toEqual([
      [0, "pass"],
      [1, "pass"]
    ])
  }, 600_000)
})
