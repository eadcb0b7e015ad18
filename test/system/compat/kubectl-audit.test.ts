/**
 * `clustersim serve --nodes 3 --audit-log-path FILE --audit-policy-file POLICY` (its own process) driven by kubectl:
 * the log holds upstream-shaped audit.k8s.io/v1 events for kubectl's create, get, list, watch and delete — the
 * stages each request has (a watch's ResponseStarted), the codes, the bodies at RequestResponse, the kubectl user
 * agent and the Audit-Id kubectl saw — and the live cluster's own components under their system users (node agents
 * as system:node:<name> in system:nodes, the scheduler, the node lifecycle controller, kube-controller-manager). A
 * second serve with a rule for /healthz at None and a 1 MB log shows the policy and the rotation from the command
 * line. Uses the newest kubectl on the machine; fails when there is none.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { findKubectls, run } from "./support/clients.js"

const kubectl = findKubectls().at(-1)
const viteNode = "node_modules/.bin/vite-node"
const dir = mkdtempSync(join(tmpdir(), "clustersim-audit-"))
const logPath = join(dir, "audit.log")
const policyPath = join(dir, "policy.yaml")
let serve: ChildProcess | undefined
let url = ""
let stderr = ""

type AuditEvent = Record<string, any>
const events = (): AuditEvent[] =>
  readFileSync(logPath, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as AuditEvent)

const until = async (what: () => boolean, ms: number) => {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (what()) return true
    await new Promise((r) => setTimeout(r, 200))
  }
  return false
}

/** `serve` with `args`, resolved with its URL once it listens. */
const startServe = (args: ReadonlyArray<string>): Promise<{ child: ChildProcess; url: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(viteNode, ["test/support/cliProcess.ts", "serve", "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const listening = /listening on (http:\/\/\S+)/.exec(out)
      if (listening) resolve({ child, url: listening[1]! })
    })
    child.on("exit", (code) => reject(new Error(`serve exited ${code}: ${out} ${stderr}`)))
  })

beforeAll(async () => {
  writeFileSync(policyPath, ["apiVersion: audit.k8s.io/v1", "kind: Policy", "rules:", "- level: RequestResponse", ""].join("\n"))
  const started = await startServe(["--nodes", "3", "--audit-log-path", logPath, "--audit-policy-file", policyPath])
  serve = started.child
  url = started.url
})

afterAll(() => {
  serve?.kill("SIGTERM")
})

const k = (...args: string[]) => run(kubectl!.path, ["--server", url, ...args])

describe("serve --audit-log-path, driven by kubectl", () => {
  it("kubectl create, get, list, watch and delete: each request's events, stages and codes", async () => {
    expect(kubectl, "no kubectl on this machine").toBeDefined()
    const created = await k("create", "configmap", "audited", "--from-literal=k=v", "-v=6")
    expect(created.code, created.stderr).toBe(0)
    expect((await k("get", "configmap", "audited", "-o", "name")).stdout.trim()).toBe("configmap/audited")
    expect((await k("get", "configmaps")).code).toBe(0)
    const watched = await k("get", "configmaps", "--watch", "--request-timeout=2s")
    expect(watched.stdout).toContain("audited")
    expect((await k("delete", "configmap", "audited")).code).toBe(0)
    expect((await k("get", "configmap", "audited")).code).toBe(1)

    const mine = () => events().filter((e) => e.userAgent?.startsWith("kubectl") && e.objectRef?.resource === "configmaps")
    // a request's ResponseComplete is written when its connection's answer is done, which may be after kubectl
    // has exited: wait until each of the 7 or more requests (kubectl 1.33 gets the missing object twice) has one
    const complete = () => {
      const seen = mine()
      const ids = new Set(seen.map((e) => e.auditID))
      return ids.size >= 7 && seen.filter((e) => e.stage === "ResponseComplete").length === ids.size
    }
    await until(complete, 10_000)
    const requests = new Map<string, AuditEvent[]>()
    for (const e of mine()) requests.set(e.auditID, [...(requests.get(e.auditID) ?? []), e])
    const summary = [...requests.values()].map((r) => [r[0]!.verb, r.map((e) => e.stage).join(","), r.at(-1)!.responseStatus?.code])
    expect(summary.slice(0, 7)).toEqual([
      ["create", "RequestReceived,ResponseComplete", 201],
      ["get", "RequestReceived,ResponseComplete", 200],
      ["list", "RequestReceived,ResponseComplete", 200],
      ["list", "RequestReceived,ResponseComplete", 200],
      ["watch", "RequestReceived,ResponseStarted,ResponseComplete", 200],
      ["delete", "RequestReceived,ResponseComplete", 200],
      ["get", "RequestReceived,ResponseComplete", 404]
    ])
    // kubectl 1.33 asks for a missing object twice
    for (const extra of summary.slice(7)) expect(extra).toEqual(["get", "RequestReceived,ResponseComplete", 404])
    const create = requests.values().next().value!.at(-1)!
    expect(create).toMatchObject({
      kind: "Event",
      apiVersion: "audit.k8s.io/v1",
      level: "RequestResponse",
      requestURI: expect.stringMatching(/^\/api\/v1\/namespaces\/default\/configmaps\?fieldManager=kubectl-create/),
      user: { username: "system:anonymous", groups: ["system:unauthenticated"] },
      sourceIPs: ["127.0.0.1"],
      objectRef: { resource: "configmaps", namespace: "default", name: "audited", apiVersion: "v1" },
      responseStatus: { metadata: {}, code: 201 },
      requestObject: { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "audited" }, data: { k: "v" } },
      responseObject: { kind: "ConfigMap", metadata: { name: "audited", namespace: "default" } },
      annotations: { "authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "" }
    })
    expect(create.stageTimestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)
    // kubectl -v=6 prints nothing of the Audit-Id; the header is checked in test/apiserver/audit/AuditHttp.test.ts
    const deleted = [...requests.values()][5]!.at(-1)!
    expect(deleted.requestObject).toMatchObject({ kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Background" })
    const missing = [...requests.values()][6]!.at(-1)!
    expect(missing.responseStatus).toEqual({ metadata: {}, status: "Failure", message: 'configmaps "audited" not found', reason: "NotFound", details: { name: "audited", kind: "configmaps" }, code: 404 })
  })

  it("the live cluster's components are recorded under their system users", async () => {
    const users = () => new Set(events().map((e) => e.user.username as string))
    const expected = ["system:node:node-0", "system:node:node-1", "system:node:node-2", "system:platform-scheduler", "system:kube-controller-manager"]
    await until(() => expected.every((u) => users().has(u)), 20_000)
    for (const u of expected) expect(users(), u).toContain(u)
    const agent = events().find((e) => e.user.username === "system:node:node-1" && e.verb === "create" && e.objectRef?.resource === "nodes" && e.stage === "ResponseComplete")!
    expect(agent).toMatchObject({
      user: { username: "system:node:node-1", groups: ["system:nodes", "system:authenticated"] },
      requestURI: "/api/v1/nodes",
      // the name comes from the created body (upstream's LogRequestObject)
      objectRef: { resource: "nodes", name: "node-1", apiVersion: "v1" },
      responseStatus: { metadata: {}, code: 201 }
    })
    // the node lifecycle controller's service account, once it has found its first nodes to update
    await until(() => users().has("system:serviceaccount:platform-system:node-controller"), 20_000)
    expect(users()).toContain("system:serviceaccount:platform-system:node-controller")
  })
})

describe("serve's audit flags", () => {
  it("a policy with /healthz at None and a 1 MB log: the policy decides, the log rotates to NAME-<time>.log", async () => {
    const small = join(dir, "small")
    const policy = join(dir, "small-policy.yaml")
    writeFileSync(
      policy,
      [
        "apiVersion: audit.k8s.io/v1",
        "kind: Policy",
        "omitStages: [RequestReceived]",
        "rules:",
        "- level: None",
        "  nonResourceURLs: [/healthz*]",
        "- level: RequestResponse",
        ""
      ].join("\n")
    )
    const { child, url: smallUrl } = await startServe(["--audit-log-path", join(small, "audit.log"), "--audit-policy-file", policy, "--audit-log-maxsize", "1", "--audit-log-maxbackup", "1"])
    try {
      // ~3.5 KB a request (the body twice, and the answer's metadata): 800 creates fill more than two megabytes
      const body = JSON.stringify({ metadata: { generateName: "c-" }, data: { k: "x".repeat(1500) } })
      for (let i = 0; i < 800; i++)
        await fetch(`${smallUrl}/api/v1/namespaces/default/configmaps`, { method: "POST", headers: { "content-type": "application/json" }, body })
      await fetch(`${smallUrl}/healthz`)
      const files = readdirSync(small).sort()
      expect(files).toHaveLength(2)
      expect(files[0]).toMatch(/^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log$/)
      expect(files[1]).toBe("audit.log")
      const lines = readFileSync(join(small, files[0]!), "utf8").split("\n").filter((l) => l !== "")
      expect(lines.every((l) => JSON.parse(l).stage === "ResponseComplete")).toBe(true)
      expect(readFileSync(join(small, files[0]!)).length).toBeLessThanOrEqual(1024 * 1024)
      expect(readFileSync(join(small, "audit.log"), "utf8")).not.toContain("/healthz")
    } finally {
      child.kill("SIGTERM")
    }
  })

  it("a bad policy is a usage error naming the file and the field", async () => {
    const bad = join(dir, "bad.yaml")
    writeFileSync(bad, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n")
    const r = await run(viteNode, ["test/support/cliProcess.ts", "serve", "--port", "0", "--audit-log-path", logPath, "--audit-policy-file", bad], 60_000)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`clustersim: --audit-policy-file: ${bad}: rules[0].level: Expected "None" | "Metadata" | "Request" | "RequestResponse", actual "Everything"`)
  })
})
