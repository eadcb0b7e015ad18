/**
 * A real-time cluster scenario through the command line against `clustersim serve --tls --authorization-mode RBAC`:
 * `clustersim run <cluster scenario> --kubeconfig F --cleanup` with the admin client certificate of the generated
 * kubeconfig, and with a bearer token of the token file whose user a ClusterRole grants what the driver writes
 * (docs/cluster.md "Real time"). The nodes register, their leases renew, `--cleanup` removes them; a token without
 * that role ends the run at its start with the server's 403 instead of waiting forever. With a `scheduler:` section
 * the scheduler runs with the same credentials: without `pods/binding` its binds are refused and the run fails
 * (`outcome:scheduler-requests`); with it the pods are bound and started.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { findKubectls, run } from "./support/clients.js"

const kubectl = findKubectls().at(-1)
const dir = mkdtempSync(join(tmpdir(), "clustersim-realtime-tls-"))
const cli = ["test/support/cliProcess.ts"]
const viteNode = "node_modules/.bin/vite-node"
let serve: ChildProcess | undefined
let url = ""
let adminKubeconfig = ""

const scenario = join(dir, "cluster.yaml")
writeFileSync(
  scenario,
  [
    "apiVersion: clustersim/v1",
    "kind: Scenario",
    "metadata: { name: tls-cluster, description: three node agents on the real clock over HTTPS }",
    "duration: 5s",
    "cluster:",
    "  nodes: 3",
    "  startSpread: 300ms",
    "  nodeAgent: { config: { nodeLeaseDurationSeconds: 4, nodeStatusUpdateFrequency: 1250ms, nodeStatusReportFrequency: 2500ms } }",
    "phases: []",
    ""
  ].join("\n")
)
const schedulerScenario = join(dir, "cluster-scheduler.yaml")
writeFileSync(
  schedulerScenario,
  readFileSync(scenario, "utf8").replace("phases: []", "scheduler:\n  batches: [{ namePrefix: web, count: 2, cpu: 100m }]\nphases: []")
)
writeFileSync(join(dir, "tokens.csv"), 'tok-driver,clustersim-driver,driver-uid,""\ntok-nobody,nobody,nobody-uid,""\n')

/** What the driver does, in the server's group names: node agents, node leases, the lifecycle controller, cleanup. */
const driverRbac = [
  {
    apiVersion: "rbac.authorization.platform/v1",
    kind: "ClusterRole",
    metadata: { name: "clustersim-driver" },
    rules: [
      { apiGroups: [""], resources: ["nodes", "nodes/status", "pods", "pods/status"], verbs: ["get", "list", "watch", "create", "update", "patch", "delete"] },
      { apiGroups: ["coordination.platform"], resources: ["leases"], verbs: ["get", "list", "watch", "create", "update", "patch", "delete"] },
      { apiGroups: ["", "events.platform"], resources: ["events"], verbs: ["create", "update", "patch"] }
    ]
  },
  {
    apiVersion: "rbac.authorization.platform/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "clustersim-driver" },
    roleRef: { apiGroup: "rbac.authorization.platform", kind: "ClusterRole", name: "clustersim-driver" },
    subjects: [{ apiGroup: "rbac.authorization.platform", kind: "User", name: "clustersim-driver" }]
  }
]

/** A kubeconfig with a bearer token for the server, trusting the generated CA. */
const tokenKubeconfig = (token: string): string => {
  const file = join(dir, `${token}.kubeconfig`)
  const clusters = [{ name: "sim", cluster: { server: url, "certificate-authority": join(dir, "certs", "ca.crt") } }]
  writeFileSync(file, JSON.stringify({ apiVersion: "v1", kind: "Config", clusters, users: [{ name: "u", user: { token } }], contexts: [{ name: "sim", context: { cluster: "sim", user: "u" } }], "current-context": "sim" }))
  return file
}

beforeAll(async () => {
  expect(kubectl).toBeDefined()
  const args = ["serve", "--tls", "--port", "0", "--cert-dir", join(dir, "certs"), "--token-auth-file", join(dir, "tokens.csv"), "--authorization-mode", "RBAC", "--anonymous-auth", "false"]
  const child = spawn(viteNode, [...cli, ...args], { stdio: ["ignore", "pipe", "pipe"] })
  serve = child
  let out = ""
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const kubeconfig = /kubeconfig \(admin client certificate\): (\S+)/.exec(out)
      const listening = /listening on (https:\/\/\S+)/.exec(out)
      if (kubeconfig && listening) {
        adminKubeconfig = kubeconfig[1]!
        url = listening[1]!
        resolve()
      }
    })
    child.on("exit", (code) => reject(new Error(`serve exited ${code}: ${out}`)))
  })
  for (const [i, doc] of driverRbac.entries()) {
    const file = join(dir, `rbac-${i}.json`)
    writeFileSync(file, JSON.stringify(doc))
    const created = await run(kubectl!.path, ["--kubeconfig", adminKubeconfig, "create", "-f", file])
    expect(created.stderr).toBe("")
  }
}, 120_000)

afterAll(() => {
  serve?.kill("SIGINT")
})

/** `clustersim run` of the scenario with a kubeconfig: exit code, stderr and the run's artifact. */
const runWith = async (kubeconfig: string, name: string, file = scenario) => {
  const out = join(dir, name)
  const ran = await run(viteNode, [...cli, "run", file, "--kubeconfig", kubeconfig, "--cleanup", "--out", out], 120_000)
  const artifact = ran.code === 0 || ran.code === 1 || ran.code === 99 ? JSON.parse(readFileSync(join(out, "run.json"), "utf8")) : undefined
  return { ...ran, artifact }
}

const expectRegisteredRenewedRemoved = async (artifact: any) => {
  expect(artifact.outcome).toBe("pass")
  const cluster = artifact.cluster
  expect(cluster.realTime.registered).toBe(3)
  expect(cluster.realTime.errorsByCode).toEqual({})
  // every node created its lease and renewed it (a renewal a second for 5 s)
  expect(cluster.heartbeats.leaseCreates).toBe(3)
  expect(cluster.heartbeats.leaseWrites).toBeGreaterThan(6)
  expect(cluster.heartbeats.failedAttempts).toBe(0)
  expect(Object.keys(cluster.readyTimeline).sort()).toEqual(["node-0", "node-1", "node-2"])
  expect(cluster.realTime.cleanup).toEqual({ removed: { nodes: 3, leases: 3, pods: 0 }, left: { nodes: 0, leases: 0, pods: 0 }, deleted: true })
  const left = await run(kubectl!.path, ["--kubeconfig", adminKubeconfig, "get", "nodes,leases", "-A", "-l", "clustersim.io/simulated=true"])
  expect([left.code, left.stdout, left.stderr.trim()]).toEqual([0, "", "No resources found"])
}

// One run at a time: the runs own the same node names.
describe("clustersim run of a cluster scenario against serve --tls with RBAC", () => {
  it("with the generated kubeconfig's client certificate (system:masters)", async () => {
    const ran = await runWith(adminKubeconfig, "certificate")
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.artifact.target).toMatchObject({ kind: "url", url })
    await expectRegisteredRenewedRemoved(ran.artifact)
  }, 180_000)

  it("with a bearer token whose user a ClusterRole allows the driver's requests", async () => {
    const ran = await runWith(tokenKubeconfig("tok-driver"), "token")
    expect(ran.code, ran.stderr).toBe(0)
    await expectRegisteredRenewedRemoved(ran.artifact)
  }, 180_000)

  it("with a token the server knows but RBAC allows nothing: the run ends at its start with the 403", async () => {
    const ran = await runWith(tokenKubeconfig("tok-nobody"), "nobody")
    expect(ran.code).toBe(1)
    // whichever informer's list is answered first: nodes or pods (cluster-wide), or the node leases
    expect(ran.stdout + ran.stderr).toMatch(
      /RUN ERROR: the informers cannot start: 403 (nodes is forbidden: User "nobody" cannot list resource "nodes" in API group "" at the cluster scope|pods is forbidden: User "nobody" cannot list resource "pods" in API group "" at the cluster scope|leases\.coordination\.platform is forbidden: User "nobody" cannot list resource "leases" in API group "coordination\.platform" in the namespace "platform-node-lease")/
    )
    expect(ran.artifact.cluster).toBeUndefined()
  }, 180_000)

  it("with a scheduler section, as the driver's user: refused binds fail the run; with pods/binding (and events list) the pods run", async () => {
    const token = tokenKubeconfig("tok-driver")
    const refused = await runWith(token, "scheduler-refused", schedulerScenario)
    expect(refused.code, refused.stderr).toBe(99)
    expect(refused.artifact.outcome).toBe("thresholds-breached")
    expect(refused.artifact.cluster.realTime.schedulerErrorsByCode["403"]).toBeGreaterThan(0)
    expect(refused.artifact.thresholds.find((t: { threshold: string }) => t.threshold === "outcome:scheduler-requests")).toMatchObject({ passed: false })
    const binder = [
      { apiVersion: "rbac.authorization.platform/v1", kind: "ClusterRole", metadata: { name: "clustersim-binder" }, rules: [
          { apiGroups: [""], resources: ["pods/binding"], verbs: ["create"] },
          // the section reads its events at the end
          { apiGroups: ["", "events.platform"], resources: ["events"], verbs: ["list"] }
        ]
      },
      {
        apiVersion: "rbac.authorization.platform/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: "clustersim-binder" },
        roleRef: { apiGroup: "rbac.authorization.platform", kind: "ClusterRole", name: "clustersim-binder" },
        subjects: [{ apiGroup: "rbac.authorization.platform", kind: "User", name: "clustersim-driver" }]
      }
    ]
    for (const [i, doc] of binder.entries()) {
      const file = join(dir, `rbac-binder-${i}.json`)
      writeFileSync(file, JSON.stringify(doc))
      expect((await run(kubectl!.path, ["--kubeconfig", adminKubeconfig, "create", "-f", file])).stderr).toBe("")
    }
    // the refused run's pods were never bound, so not the cleanup's: they wait for this run's scheduler (its creates answer 409)
    const ran = await runWith(token, "scheduler", schedulerScenario)
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.artifact.cluster.realTime.schedulerErrorsByCode["403"]).toBeUndefined()
    expect(ran.artifact.sections.scheduler).toMatchObject({ binds: 2, events: { byReason: { Scheduled: 2 } } })
    expect(ran.artifact.cluster.realTime.podStartup).toMatchObject({ pods: 2, observedRunning: 2 })
    expect(ran.artifact.cluster.realTime.cleanup).toMatchObject({ removed: { pods: 2 }, deleted: true })
  }, 300_000)
})
