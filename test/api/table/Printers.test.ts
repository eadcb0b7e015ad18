/** Printer rows as upstream's printers compute them (`pkg/printers/internalversion/printers.go`). */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { KObject } from "../../../src/api/Object.js"
import { humanDuration, timestampSince } from "../../../src/api/table/HumanDuration.js"
import { eventPrinter } from "../../../src/api/table/printers/EventPrinter.js"
import { nodePrinter } from "../../../src/api/table/printers/NodePrinter.js"
import { podPrinter } from "../../../src/api/table/printers/PodPrinter.js"
import { servicePrinter } from "../../../src/api/table/printers/ServicePrinter.js"
import { deploymentPrinter } from "../../../src/api/table/printers/SimplePrinters.js"
import { listTable, parseIncludeObject } from "../../../src/api/table/Table.js"

const now = Date.parse("2026-01-01T12:00:00Z")
const ago = (s: number) => new Date(now - s * 1000).toISOString().replace(".000", "")
const obj = (fields: Record<string, unknown>, meta: Record<string, unknown> = {}): KObject => ({ metadata: { name: "x", creationTimestamp: ago(30), ...meta }, ...fields })

describe("HumanDuration", () => {
  it.each([
    [-5, "<invalid>"],
    [-1, "0s"],
    [0, "0s"],
    [119, "119s"],
    [120, "2m"],
    [125, "2m5s"],
    [600, "10m"],
    [3 * 3600 - 1, "179m"],
    [3 * 3600, "3h"],
    [3 * 3600 + 60 * 5, "3h5m"],
    [8 * 3600, "8h"],
    [47 * 3600, "47h"],
    [50 * 3600, "2d2h"],
    [8 * 86400, "8d"],
    [800 * 86400, "2y70d"],
    [9 * 365 * 86400, "9y"]
  ])("%ss → %s", (seconds, text) => expect(humanDuration(seconds * 1000)).toBe(text))

  it("unset times are <unknown>", () => {
    expect(timestampSince(undefined, now)).toBe("<unknown>")
    expect(timestampSince("0001-01-01T00:00:00Z", now)).toBe("<unknown>")
  })
})

const running = (name: string, ready: boolean, restarts = 0, extra: Record<string, unknown> = {}) => ({ name, ready, restartCount: restarts, state: { running: { startedAt: ago(20) } }, ...extra })

describe("pod rows", () => {
  it("READY, STATUS, RESTARTS with the last restart's age, and the wide cells", () => {
    const pod = obj({
      spec: { nodeName: "n1", containers: [{ name: "a" }, { name: "b" }] },
      status: {
        phase: "Running",
        podIPs: [{ ip: "10.0.0.5" }],
        containerStatuses: [running("a", true, 2, { lastState: { terminated: { exitCode: 1, finishedAt: ago(65) } } }), running("b", false)]
      }
    })
    expect(podPrinter.row(pod, now).cells).toEqual(["x", "1/2", "Running", "2 (65s ago)", "30s", "10.0.0.5", "n1", "<none>", "<none>"])
  })

  it("a pending pod, a waiting reason, terminating and unreachable", () => {
    const pending = obj({ spec: { containers: [{ name: "a" }] }, status: { phase: "Pending" } })
    expect(podPrinter.row(pending, now).cells.slice(1, 4)).toEqual(["0/1", "Pending", "0"])
    const waiting = obj({ spec: { containers: [{ name: "a" }] }, status: { phase: "Pending", containerStatuses: [{ name: "a", state: { waiting: { reason: "ContainerCreating" } } }] } })
    expect(podPrinter.row(waiting, now).cells[2]).toBe("ContainerCreating")
    const crashed = obj({ spec: { containers: [{ name: "a" }] }, status: { phase: "Running", containerStatuses: [{ name: "a", state: { terminated: { exitCode: 137 } } }] } })
    expect(podPrinter.row(crashed, now).cells[2]).toBe("ExitCode:137")
    const terminating = obj({ spec: { containers: [] }, status: { phase: "Running" } }, { deletionTimestamp: ago(1) })
    expect(podPrinter.row(terminating, now).cells[2]).toBe("Terminating")
    const lost = obj({ spec: { containers: [] }, status: { phase: "Running", reason: "NodeLost" } }, { deletionTimestamp: ago(1) })
    expect(podPrinter.row(lost, now).cells[2]).toBe("Unknown")
    const evicted = obj({ spec: { containers: [] }, status: { phase: "Failed", reason: "Evicted" } })
    expect(podPrinter.row(evicted, now)).toEqual({ cells: expect.arrayContaining(["Evicted"]), conditions: [{ type: "Completed", status: "True", reason: "Failed", message: "The pod failed." }] })
  })

  it("init containers: progress, a failed one, and a waiting reason", () => {
    const spec = { initContainers: [{ name: "i1" }, { name: "i2" }], containers: [{ name: "a" }] }
    const progress = obj({ spec, status: { phase: "Pending", initContainerStatuses: [{ name: "i1", state: { terminated: { exitCode: 0 } } }, { name: "i2", state: { running: {} } }] } })
    expect(podPrinter.row(progress, now).cells[2]).toBe("Init:1/2")
    const failed = obj({ spec, status: { phase: "Pending", initContainerStatuses: [{ name: "i1", state: { terminated: { exitCode: 2 } } }] } })
    expect(podPrinter.row(failed, now).cells[2]).toBe("Init:ExitCode:2")
    const backoff = obj({ spec, status: { phase: "Pending", initContainerStatuses: [{ name: "i1", state: { waiting: { reason: "CrashLoopBackOff" } } }] } })
    expect(podPrinter.row(backoff, now).cells[2]).toBe("Init:CrashLoopBackOff")
  })
})

describe("node rows", () => {
  it("Ready/NotReady/Unknown, SchedulingDisabled, roles sorted, wide cells", () => {
    const node = obj(
      {
        spec: { unschedulable: true },
        status: {
          conditions: [{ type: "Ready", status: "True" }],
          addresses: [{ type: "InternalIP", address: "10.1.0.1" }],
          nodeInfo: { nodeAgentVersion: "v1.26.15", osImage: "Debian" }
        }
      },
      { labels: { "node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "infra" } }
    )
    expect(nodePrinter.row(node, now).cells).toEqual(["x", "Ready,SchedulingDisabled", "control-plane,infra,worker", "30s", "v1.26.15", "10.1.0.1", "<none>", "Debian", "<unknown>", "<unknown>"])
    expect(nodePrinter.row(obj({ status: { conditions: [{ type: "Ready", status: "Unknown" }] } }), now).cells.slice(1, 3)).toEqual(["NotReady", "<none>"])
    expect(nodePrinter.row(obj({ status: {} }), now).cells[1]).toBe("Unknown")
  })
})

describe("event rows", () => {
  it("series, singleton count, object, source falling back to the reporting controller", () => {
    const event = obj(
      {
        eventTime: ago(100),
        series: { count: 4, lastObservedTime: ago(10) },
        reportingController: "platform-scheduler",
        reportingInstance: "platform-scheduler-1",
        reason: "FailedScheduling",
        type: "Warning",
        note: " 0/3 nodes are available \n",
        regarding: { kind: "Pod", name: "p1", fieldPath: "spec.containers{a}" }
      },
      { name: "p1.abc" }
    )
    expect(eventPrinter.row(event, now).cells).toEqual([
      "10s",
      "Warning",
      "FailedScheduling",
      "pod/p1",
      "spec.containers{a}",
      "platform-scheduler, platform-scheduler-1",
      "0/3 nodes are available",
      "100s",
      4,
      "p1.abc"
    ])
    const legacy = obj({ deprecatedFirstTimestamp: ago(300), deprecatedLastTimestamp: ago(200), deprecatedSource: { component: "kubelet" }, regarding: { kind: "Node" } })
    expect(eventPrinter.row(legacy, now).cells).toEqual(["3m20s", "", "", "node", "", "kubelet", "", "5m", 1, "x"])
  })
})

describe("service and deployment rows", () => {
  it("ports with node ports, external IPs by type, selectors", () => {
    const svc = obj({ spec: { type: "NodePort", clusterIPs: ["10.96.0.10"], ports: [{ port: 80, nodePort: 30080, protocol: "TCP" }, { port: 53, protocol: "UDP" }], selector: { b: "2", a: "1" } } })
    expect(servicePrinter.row(svc, now).cells).toEqual(["x", "NodePort", "10.96.0.10", "<none>", "80:30080/TCP,53/UDP", "30s", "a=1,b=2"])
    const lb = obj({ spec: { type: "LoadBalancer" } })
    expect(servicePrinter.row(lb, now).cells.slice(2, 5)).toEqual(["<none>", "<pending>", "<none>"])
    const d = obj({
      spec: { replicas: 3, selector: { matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "In", values: ["b", "a"] }] }, template: { spec: { containers: [{ name: "c1", image: "nginx" }, { name: "c2", image: "busybox" }] } } },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 }
    })
    expect(deploymentPrinter.row(d, now).cells).toEqual(["x", "2/3", 3, 2, "30s", "c1,c2", "nginx,busybox", "app=web,tier in (a,b)"])
  })
})

describe("Table", () => {
  it("includeObject defaults to Metadata; others are upstream's 400", () => {
    expect(parseIncludeObject(null)).toEqual(Either.right("Metadata"))
    expect(parseIncludeObject("")).toEqual(Either.right("Metadata"))
    const bad = parseIncludeObject("x")
    expect(bad._tag === "Left" && bad.left.status.message).toBe(
      `Unable to convert to Table as requested: includeObject: Invalid value: "x": must be 'Metadata', 'Object', 'None', or empty`
    )
  })

  it("kinds without printers get Name and Created At, rows null when empty", () => {
    const t = listTable("Widget", { kind: "WidgetList", apiVersion: "v1", metadata: { resourceVersion: "7" }, items: [] }, { apiVersion: "meta.k8s.io/v1", includeObject: "None", now, columns: true })
    expect(t.columnDefinitions?.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ["Name", "string", "name", 0],
      ["Created At", "date", "", 0]
    ])
    expect(t.rows).toBeNull()
    expect(t.metadata).toEqual({ resourceVersion: "7" })
  })
})
