/**
 * Every kubectl on the machine against the simulated server: `get` prints the server's Table columns (pods with
 * `-o wide`, nodes with ROLES and SchedulingDisabled, events), `describe pod` shows the pod's events (core v1
 * events), `describe node` the node's lease (`coordination.k8s.io`, `kube-node-lease`) and `api-resources` lists
 * each resource once per API. Fails when no kubectl is installed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, findKubectls, run, startServer } from "./support/clients.js"

const kubectls = findKubectls()
let server: Awaited<ReturnType<typeof startServer>>

beforeAll(async () => {
  server = await startServer()
  const url = server.url
  await call(url, "POST", "/api/v1/nodes", {
    metadata: { name: "n1", labels: { "node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/infra": "" } },
    spec: { unschedulable: true },
    status: { conditions: [{ type: "Ready", status: "True" }], addresses: [{ type: "InternalIP", address: "10.0.0.1" }], nodeInfo: { nodeAgentVersion: "v1.26.15", osImage: "Debian" } }
  })
  const pod = await call(url, "POST", "/api/v1/namespaces/default/pods", { metadata: { name: "p1" }, spec: { nodeName: "n1", containers: [{ name: "c", image: "nginx:1.25" }] } })
  await call(url, "PUT", "/api/v1/namespaces/default/pods/p1/status", {
    ...pod,
    status: {
      phase: "Running",
      podIPs: [{ ip: "10.244.0.7" }],
      conditions: [{ type: "Ready", status: "True" }],
      containerStatuses: [{ name: "c", ready: true, restartCount: 0, image: "nginx:1.25", imageID: "", state: { running: { startedAt: pod.metadata.creationTimestamp } } }]
    }
  })
  await call(url, "POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", {
    metadata: { name: "n1" },
    spec: { holderIdentity: "n1", leaseDurationSeconds: 40, renewTime: "2026-01-01T00:00:00.000000Z" }
  })
  const event = (name: string, regarding: object, reason: string, note: string) => ({
    metadata: { name },
    eventTime: new Date().toISOString().replace("Z", "000Z"),
    reportingController: "default-scheduler",
    reportingInstance: "scheduler-1",
    action: "Binding",
    reason,
    type: "Normal",
    note,
    regarding
  })
  await call(url, "POST", "/apis/events.k8s.io/v1/namespaces/default/events", event("p1.1", { kind: "Pod", namespace: "default", name: "p1", uid: pod.metadata.uid, apiVersion: "v1" }, "Scheduled", "Successfully assigned default/p1 to n1"))
  const node = await call(url, "GET", "/api/v1/nodes/n1")
  await call(url, "POST", "/apis/events.k8s.io/v1/namespaces/default/events", event("n1.1", { kind: "Node", name: "n1", uid: node.metadata.uid }, "NodeNotSchedulable", "Node n1 status is now: NodeNotSchedulable"))
})

afterAll(async () => server?.close())

const columns = (line: string | undefined) => (line ?? "").trim().split(/\s{2,}/)

describe("kubectl", () => {
  it("is installed (the suite fails without one)", () => {
    expect(kubectls.length).toBeGreaterThan(0)
  })

  describe.concurrent.each(kubectls)("kubectl $version", ({ path }) => {
    const kubectl = (...args: ReadonlyArray<string>) => run(path, ["--server", server.url, ...args])

    it("get pods: READY, STATUS, RESTARTS, AGE; -o wide adds IP, NODE, NOMINATED NODE, READINESS GATES", async () => {
      const plain = await kubectl("get", "pods")
      expect(plain.stderr).toBe("")
      const [header, row] = plain.stdout.trimEnd().split("\n")
      expect(columns(header)).toEqual(["NAME", "READY", "STATUS", "RESTARTS", "AGE"])
      expect(columns(row)).toEqual(["p1", "1/1", "Running", "0", expect.stringMatching(/^\d+s$/)])
      const wide = await kubectl("get", "pods", "-o", "wide")
      const [wideHeader, wideRow] = wide.stdout.trimEnd().split("\n")
      expect(columns(wideHeader)).toEqual(["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"])
      expect(columns(wideRow)).toEqual(["p1", "1/1", "Running", "0", expect.stringMatching(/^\d+s$/), "10.244.0.7", "n1", "<none>", "<none>"])
    })

    it("get nodes: STATUS with SchedulingDisabled and sorted ROLES", async () => {
      const out = await kubectl("get", "nodes")
      const [header, row] = out.stdout.trimEnd().split("\n")
      expect(columns(header)).toEqual(["NAME", "STATUS", "ROLES", "AGE", "VERSION"])
      expect(columns(row)).toEqual(["n1", "Ready,SchedulingDisabled", "infra,worker", expect.stringMatching(/^\d+s$/), "v1.26.15"])
    })

    it("get events: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE", async () => {
      const out = await kubectl("get", "events", "--sort-by=metadata.name")
      const [header, ...rows] = out.stdout.trimEnd().split("\n")
      expect(columns(header)).toEqual(["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"])
      expect(rows.map((r) => columns(r).slice(1))).toEqual([
        ["Normal", "NodeNotSchedulable", "node/n1", "Node n1 status is now: NodeNotSchedulable"],
        ["Normal", "Scheduled", "pod/p1", "Successfully assigned default/p1 to n1"]
      ])
    })

    it("describe pod shows its events; describe node its lease and events", async () => {
      const pod = await kubectl("describe", "pod", "p1")
      expect(pod.code).toBe(0)
      expect(pod.stdout).toMatch(/Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message\n[\s-]+\n\s+Normal\s+Scheduled\s+\d+s\s+default-scheduler\s+Successfully assigned default\/p1 to n1\n/)
      expect(pod.stdout).toMatch(/Tolerations:\s+node\.platform\.io\/not-ready:NoExecute op=Exists for 300s/)
      const node = await kubectl("describe", "node", "n1")
      expect(node.code).toBe(0)
      expect(node.stdout).toMatch(/Lease:\n\s+HolderIdentity:\s+n1\n/)
      expect(node.stdout).toMatch(/Normal\s+NodeNotSchedulable\s+\d+s\s+default-scheduler\s+Node n1 status is now: NodeNotSchedulable/)
    })

    it("api-resources lists each resource once per API", async () => {
      const out = await kubectl("api-resources", "--no-headers", "-o", "name")
      const names = out.stdout.trim().split("\n")
      expect(names).toEqual([...new Set(names)])
      expect(names).toEqual(expect.arrayContaining(["pods", "events", "leases.coordination.platform", "events.events.platform"]))
    })
  })
})
