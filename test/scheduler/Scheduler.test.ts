import { Clock, Effect, Either } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { ConfigMaps, Events, Nodes, Pods } from "../../src/api/Resources.js"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import type { KObject } from "../../src/api/Object.js"
import { make as makeRecorder } from "../../simulator/events/EventRecorder.js"
import { podView, type PodView } from "../../simulator/scheduler/framework/Views.js"
import { makeSchedulerCore, runInformers, runSchedulingLoop } from "../../simulator/scheduler/Scheduler.js"
import type { SchedulerScenarioResult } from "../../simulator/scheduler/SchedulerScenario.js"
import { runSimulation } from "../../simulator/cluster/ClusterRun.js"
import { parseScenario } from "../../app/scenario/load.js"
import { simulationOf } from "../../app/scenario/Simulated.js"
import { podKey } from "../../simulator/scheduler/SchedulingQueue.js"
import { runSim } from "./sim.js"

const nodeObj = (name: string, cpu: string, labels: Record<string, string> = {}, taints?: unknown[]) => ({
  metadata: { name, labels },
  spec: taints ? { taints } : {},
  status: { allocatable: { cpu, memory: "8Gi", pods: "110" }, capacity: { cpu, memory: "8Gi", pods: "110" } }
})
const podObj = (name: string, cpu: string, spec: Record<string, unknown> = {}) => ({
  metadata: { name, namespace: "default" },
  spec: { containers: [{ name: "c", image: "img", resources: { requests: { cpu } } }], ...spec }
})

describe("Scheduler on a small cluster", () => {
  it("binds via pods/binding, emits exact Scheduled / FailedScheduling texts, retries after a node joins", () => {
    const r = runSim(
      Effect.gen(function* () {
        const client = yield* ApiClient
        yield* Effect.orDie(client.create(Nodes, nodeObj("node-a", "2", { disk: "hdd" })))
        yield* Effect.orDie(client.create(Nodes, nodeObj("node-b", "2", { disk: "ssd" })))
        yield* Effect.orDie(client.create(Nodes, nodeObj("node-c", "2", {}, [{ key: "node.platform.io/unreachable", effect: "NoSchedule" }])))
        const recorder = yield* makeRecorder({ reportingController: "default-scheduler", reportingInstance: "default-scheduler-host" })
        const core = yield* makeSchedulerCore({ recorder })
        yield* Effect.forkScoped(runInformers(core))
        yield* Effect.forkScoped(runSchedulingLoop(core))
        yield* Effect.orDie(client.create(Pods, podObj("fast", "500m", { nodeSelector: { disk: "ssd" } }), { namespace: "default" }))
        yield* Effect.orDie(client.create(Pods, podObj("big", "3"), { namespace: "default" }))
        yield* Effect.sleep("5 seconds")
        const fast = yield* Effect.orDie(client.get(Pods, "fast", { namespace: "default" }))
        const bigPending = yield* Effect.orDie(client.get(Pods, "big", { namespace: "default" }))
        yield* recorder.flush
        const events1 = (yield* Effect.orDie(client.list(Events, {}))).items
        // A bigger node joins: the unschedulable pod moves (after its 1 s backoff has passed) and binds.
        yield* Effect.orDie(client.create(Nodes, nodeObj("node-d", "8")))
        yield* Effect.sleep("2 seconds")
        const big = yield* Effect.orDie(client.get(Pods, "big", { namespace: "default" }))
        return { fast, bigPending, events1, big, stats: core.snapshot() }
      })
    )
    expect((r.fast.spec as { nodeName?: string }).nodeName).toBe("node-b")
    const notes = r.events1.map((e) => `${e.type} ${e.reason} ${e.action}: ${e.note}`)
    expect(notes).toContain("Normal Scheduled Binding: Successfully assigned default/fast to node-b")
    expect(notes).toContain(
      "Warning FailedScheduling Scheduling: 0/3 nodes are available: 1 node(s) had untolerated taint {node.platform.io/unreachable: }, 2 Insufficient cpu. " +
        "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.."
    )
    const cond = ((r.bigPending.status as { conditions?: Array<Record<string, unknown>> }).conditions ?? []).find((c) => c.type === "PodScheduled")
    expect(cond).toMatchObject({ status: "False", reason: "Unschedulable" })
    expect((r.big.spec as { nodeName?: string }).nodeName).toBe("node-d")
    expect(r.stats).toMatchObject({ scheduled: 2, failed: 1, nodes: 4 })
  })

  it("no nodes: 'no nodes available to schedule pods'", () => {
    const notes = runSim(
      Effect.gen(function* () {
        const client = yield* ApiClient
        const recorder = yield* makeRecorder({ reportingController: "default-scheduler", reportingInstance: "x" })
        const core = yield* makeSchedulerCore({ recorder })
        yield* Effect.forkScoped(runInformers(core))
        yield* Effect.forkScoped(runSchedulingLoop(core))
        yield* Effect.orDie(client.create(Pods, podObj("p", "1"), { namespace: "default" }))
        yield* Effect.sleep("1 second")
        yield* recorder.flush
        return (yield* Effect.orDie(client.list(Events, {}))).items.map((e) => e.note)
      })
    )
    expect(notes).toEqual(["no nodes available to schedule pods"])
  })

  it("spreads by LeastAllocated: 20 pods on 4 equal nodes → 5 each", () => {
    const counts = runSim(
      Effect.gen(function* () {
        const client = yield* ApiClient
        for (const n of ["n1", "n2", "n3", "n4"]) yield* Effect.orDie(client.create(Nodes, nodeObj(n, "4")))
        const core = yield* makeSchedulerCore({})
        yield* Effect.forkScoped(runInformers(core))
        yield* Effect.forkScoped(runSchedulingLoop(core))
        for (let i = 0; i < 20; i++) yield* Effect.orDie(client.create(Pods, podObj(`p${i}`, "100m"), { namespace: "default" }))
        yield* Effect.sleep("1 second")
        const pods = (yield* Effect.orDie(client.list(Pods, {}))).items
        const c: Record<string, number> = {}
        for (const p of pods) {
          const n = (p.spec as { nodeName?: string }).nodeName ?? ""
          c[n] = (c[n] ?? 0) + 1
        }
        return c
      })
    )
    expect(counts).toEqual({ n1: 5, n2: 5, n3: 5, n4: 5 })
  })
})

describe("informers across watch timeouts", () => {
  it("keep up for hours of virtual time (re-watch from the last version) and still schedule", () => {
    const node = runSim(
      Effect.gen(function* () {
        const client = yield* ApiClient
        yield* Effect.orDie(client.create(Nodes, nodeObj("n1", "4")))
        const core = yield* makeSchedulerCore({})
        yield* Effect.forkScoped(runInformers(core))
        yield* Effect.forkScoped(runSchedulingLoop(core))
        yield* Effect.sleep("90 minutes")
        yield* Effect.orDie(client.create(Nodes, nodeObj("n2", "4")))
        yield* Effect.orDie(client.create(Pods, podObj("late", "3500m"), { namespace: "default" }))
        yield* Effect.sleep("1 second")
        const pod = yield* Effect.orDie(client.get(Pods, "late", { namespace: "default" }))
        return { nodeName: (pod.spec as { nodeName?: string }).nodeName, nodes: core.snapshot().nodes }
      }),
      { maxDuration: "3 hours" }
    )
    expect(node.nodes).toBe(2)
    expect(node.nodeName).toMatch(/^n[12]$/)
  })
})

describe("a scenario's scheduler section", () => {
  it.live("leader failover: leader lost → new leader → first bind, transitions counted", () =>
    Effect.gen(function* () {
      // decoded and run as `clustersim run` runs it: the section in the scenario's one simulation
      const loaded = parseScenario(
        `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: failover }
seed: 7
scheduler:
  duration: 2m
  nodes: [{ count: 10, cpu: "8", memory: 32Gi }]
  replicas: 2
  batches: [{ count: 100, rate: 1, cpu: 100m, memory: 128Mi, namePrefix: web }]
  killLeaderAt: 30s
phases: []
`,
        "failover.yaml"
      )
      if (Either.isLeft(loaded)) return yield* Effect.die(loaded.left)
      const simulated = yield* runSimulation(simulationOf(loaded.right.scenario, 7, "."))
      const r = simulated.sections.scheduler as SchedulerScenarioResult
      expect(r.binds).toBe(100)
      expect(r.leaseTransitions).toBe(1)
      expect(r.failover!.newLeader).toBeDefined()
      expect(r.failover!.leaderLostToNewLeaderMs!).toBeLessThanOrEqual(15_000 + 4_400)
      expect(r.failover!.totalMs!).toBeLessThanOrEqual(15_000 + 4_400 + 1_000)
      expect(r.events.byReason.LeaderElection).toBe(2)
      expect(r.events.byReason.Scheduled).toBe(100)
    })
  )
})

describe("SchedulerCore caches", () => {
  const core = () =>
    runSim(
      Effect.gen(function* () {
        return yield* makeSchedulerCore({})
      })
    )
  const bound = (name: string, node: string, cpu: string) => ({
    metadata: { name, namespace: "default" },
    spec: { nodeName: node, containers: [{ name: "c", image: "img", resources: { requests: { cpu, memory: "1Gi" } } }] },
    status: { phase: "Pending" }
  })

  it("accounts pods bound to a node that registers after them, and only to that node", () => {
    const c = core()
    c.upsertPod(bound("a", "late", "500m"), 0)
    c.upsertPod(bound("b", "late", "250m"), 0)
    c.upsertPod(bound("x", "other", "1"), 0)
    c.upsertNode(nodeObj("late", "4"), 0)
    const info = c.nodes.get("late")!
    expect([info.pods, info.reqCpu, info.reqMemory]).toEqual([2, 750, 2 * 1024 ** 3])
    c.deletePod(bound("a", "late", "500m"), 0)
    expect([info.pods, info.reqCpu]).toEqual([1, 250])
    // a pod that moved to another node before its node registered is not counted twice
    c.upsertNode(nodeObj("other", "4"), 0)
    expect(c.nodes.get("other")!.pods).toBe(1)
  })

  it("a status-only update of an accounted pod changes nothing; a terminal phase frees its resources", () => {
    const c = core()
    c.upsertNode(nodeObj("n", "4"), 0)
    const pod = bound("p", "n", "1")
    c.upsertPod(pod, 0)
    const info = c.nodes.get("n")!
    expect([info.pods, info.reqCpu]).toEqual([1, 1000])
    c.upsertPod({ ...pod, status: { phase: "Running" } }, 0)
    expect([info.pods, info.reqCpu]).toEqual([1, 1000])
    c.upsertPod({ ...pod, status: { phase: "Succeeded" } }, 0)
    expect([info.pods, info.reqCpu]).toEqual([0, 0])
  })

  it("a relist drops the pods it no longer has and keeps the rest; namespaces keep equal names apart", () => {
    const c = core()
    c.upsertNode(nodeObj("n", "4"), 0)
    const a = bound("a", "n", "1")
    const b = bound("b", "n", "500m")
    const otherA = { ...bound("a", "n", "250m"), metadata: { name: "a", namespace: "other" } }
    c.replacePods([a, b, otherA], 0)
    const info = c.nodes.get("n")!
    expect([info.pods, info.reqCpu]).toEqual([3, 1750])
    c.replacePods([a, b, otherA], 0)
    expect([info.pods, info.reqCpu]).toEqual([3, 1750])
    c.replacePods([b, otherA], 0)
    expect([info.pods, info.reqCpu]).toEqual([2, 750])
    c.deletePod(otherA, 0)
    expect([info.pods, info.reqCpu]).toEqual([1, 500])
    c.replacePods([], 0)
    expect([info.pods, info.reqCpu]).toEqual([0, 0])
  })

  it("a node that leaves keeps its pods accounted, and takes them (and those bound meanwhile) back when it returns", () => {
    const c = core()
    c.upsertNode(nodeObj("n", "4"), 0)
    c.upsertPod(bound("a", "n", "500m"), 0)
    c.upsertPod(bound("b", "n", "250m"), 0)
    c.deleteNode("n")
    expect(c.nodes.has("n")).toBe(false)
    c.deletePod(bound("a", "n", "500m"), 0)
    c.upsertPod(bound("c", "n", "1"), 0)
    c.upsertNode(nodeObj("n", "4"), 0)
    const info = c.nodes.get("n")!
    expect([info.pods, info.reqCpu, info.reqMemory]).toEqual([2, 1250, 2 * 1024 ** 3])
    c.replaceNodes([], 0)
    c.replacePods([], 0)
    c.upsertNode(nodeObj("n", "4"), 0)
    const empty = c.nodes.get("n")!
    expect([empty.pods, empty.reqCpu, empty.reqMemory, empty.nonZeroCpu, empty.nonZeroMemory]).toEqual([0, 0, 0, 0, 0])
  })

  it("random informer traffic, relists, assumptions: every node's usage is the sum over its pods, the queue holds the pending ones", () => {
    const c = core()
    let state = 42
    const rand = (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31
      return Math.floor((state / 2 ** 31) * n)
    }
    const pick = <A>(xs: ReadonlyArray<A>): A => xs[rand(xs.length)]!
    const nodeNames = ["n0", "n1", "n2"]
    const containerSets = [
      [{ name: "c", resources: { requests: { cpu: "100m", memory: "1Gi" } } }],
      [{ name: "c", resources: { requests: { cpu: "1" } } }, { name: "d" }],
      [{ name: "c" }]
    ]
    const server = new Map<string, KObject>()
    // The model: what is accounted where (as the informer last told), and what is queued.
    const accounted = new Map<string, { node: string; view: PodView }>()
    const queued = new Set<string>()
    const registered = new Set<string>()
    const keyOf = (o: KObject) => podKey({ namespace: o.metadata.namespace!, name: o.metadata.name! })
    const told = (o: KObject) => {
      const key = keyOf(o)
      const spec = o.spec as { nodeName?: string; schedulerName?: string }
      const phase = (o.status as { phase?: string }).phase
      const terminal = phase === "Succeeded" || phase === "Failed"
      const node = spec.nodeName ?? ""
      if (node !== "" || terminal || o.metadata.deletionTimestamp) queued.delete(key)
      else if (spec.schedulerName === undefined) queued.add(key)
      if (terminal || (node === "" && o.metadata.deletionTimestamp)) accounted.delete(key)
      else if (node !== "" && accounted.get(key)?.node !== node) accounted.set(key, { node, view: podView(o) })
    }
    const deliver = (o: KObject) => {
      c.upsertPod(o, 0)
      told(o)
    }
    /** The next version of a pod on the server: created, bound, its status written, finished or terminating. */
    const change = (key: string): KObject | undefined => {
      const o = server.get(key)
      const [namespace, name] = key.split("/") as [string, string]
      if (o === undefined) {
        const spec = {
          containers: pick(containerSets),
          ...(rand(2) === 0 ? { nodeName: pick(nodeNames) } : {}),
          ...(rand(8) === 0 ? { schedulerName: "other" } : {})
        }
        return { metadata: { namespace, name }, spec, status: { phase: "Pending" } }
      }
      const spec = o.spec as { nodeName?: string }
      const r = rand(10)
      if (spec.nodeName === undefined && r < 4) return { ...o, spec: { ...spec, nodeName: pick(nodeNames) } }
      if (r < 8) return { ...o, status: { phase: pick(["Pending", "Running"]) } }
      if (r < 9) return { ...o, status: { phase: pick(["Succeeded", "Failed"]) } }
      return { ...o, metadata: { ...o.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } }
    }
    const keys = ["default", "other"].flatMap((ns) => Array.from({ length: 8 }, (_, i) => `${ns}/p${i}`))
    for (let step = 0; step < 4000; step++) {
      const key = pick(keys)
      const r = rand(100)
      if (r < 55) {
        const next = change(key)!
        server.set(key, next)
        deliver(next)
      } else if (r < 65) {
        const o = server.get(key)
        if (o !== undefined) {
          server.delete(key)
          c.deletePod(o, 0)
          accounted.delete(key)
          queued.delete(key)
        }
      } else if (r < 75) {
        // Missed while the watch was down; the next relist catches up.
        const next = change(key)!
        if (rand(3) === 0) server.delete(key)
        else server.set(key, next)
      } else if (r < 80) {
        const items = [...server.values()]
        c.replacePods(items, 0)
        for (const o of items) told(o)
        for (const k of [...accounted.keys()]) if (!server.has(k)) accounted.delete(k)
      } else if (r < 88) {
        const o = server.get(key)
        if (o !== undefined && (o.spec as { nodeName?: string }).nodeName === undefined) {
          const view = podView(o)
          const decided = c.decide(view)
          if ("node" in decided && accounted.get(key)?.node !== decided.node) accounted.set(key, { node: decided.node, view })
          if (rand(3) === 0) {
            c.forget(view)
            accounted.delete(key)
          }
        }
      } else {
        const node = pick(nodeNames)
        if (registered.has(node) && rand(2) === 0) {
          c.deleteNode(node)
          registered.delete(node)
        } else {
          c.upsertNode(nodeObj(node, "64"), 0)
          registered.add(node)
        }
      }
      for (const node of nodeNames) {
        const info = c.nodes.get(node)
        expect(info !== undefined).toBe(registered.has(node))
        if (info === undefined) continue
        const want = [0, 0, 0, 0, 0]
        for (const a of accounted.values()) {
          if (a.node !== node) continue
          const v = a.view
          want[0]! += 1
          want[1]! += v.cpu
          want[2]! += v.memory
          want[3]! += v.nonZeroCpu
          want[4]! += v.nonZeroMemory
        }
        expect([info.pods, info.reqCpu, info.reqMemory, info.nonZeroCpu, info.nonZeroMemory], `step ${step}, ${node}`).toEqual(want)
      }
      for (const k of keys) expect(c.queue.has(k), `step ${step}, ${k} queued`).toBe(queued.has(k))
    }
  })
})

describe("informers after a compaction", () => {
  it("relist like client-go: the re-watch gets 410, the relist waits the backoff (0.8–1.6 s) and lists at the last rv, unpaginated", () => {
    const r = runSim(
      Effect.gen(function* () {
        const inner = yield* ApiClient
        const server = yield* ApiServer
        const podLists: Array<{ at: number; resourceVersion: string | undefined; limit: number | undefined }> = []
        const tapped: ApiClientService = {
          ...inner,
          list: (resource, opts) =>
            Effect.flatMap(Clock.currentTimeMillis, (at) => {
              if (resource === Pods) podLists.push({ at, resourceVersion: opts?.resourceVersion, limit: opts?.limit })
              return inner.list(resource, opts)
            })
        }
        yield* Effect.orDie(inner.create(Nodes, nodeObj("n1", "4")))
        const core = yield* makeSchedulerCore({})
        yield* Effect.forkScoped(runInformers(core).pipe(Effect.provideService(ApiClient, tapped)))
        yield* Effect.forkScoped(runSchedulingLoop(core))
        yield* Effect.orDie(inner.create(Pods, podObj("before", "1"), { namespace: "default" }))
        yield* Effect.sleep("5 seconds")
        const seenRv = (yield* Effect.orDie(inner.get(Pods, "before", { namespace: "default" }))).metadata.resourceVersion
        // Writes the pod watch does not see move the revision on; compaction makes the watch's rv history.
        for (let i = 0; i < 3; i++) yield* Effect.orDie(inner.create(ConfigMaps, { metadata: { name: `cm${i}` } }, { namespace: "default" }))
        yield* server.compact()
        const droppedAt = yield* Clock.currentTimeMillis
        yield* server.dropWatches()
        // created while the pod informer is down: bound once it relisted
        yield* Effect.orDie(inner.create(Pods, podObj("during", "1"), { namespace: "default" }))
        yield* Effect.sleep("10 seconds")
        const during = yield* Effect.orDie(inner.get(Pods, "during", { namespace: "default" }))
        return { podLists, droppedAt, seenRv, nodeName: (during.spec as { nodeName?: string }).nodeName }
      })
    )
    expect(r.podLists[0]).toMatchObject({ at: 0, resourceVersion: "0", limit: 500 })
    expect(r.podLists).toHaveLength(2)
    const relist = r.podLists[1]!
    expect(relist.resourceVersion).toBe(r.seenRv)
    expect(relist.limit).toBeUndefined()
    expect(relist.at - r.droppedAt).toBeGreaterThanOrEqual(800)
    expect(relist.at - r.droppedAt).toBeLessThan(1600)
    expect(r.nodeName).toBe("n1")
  })
})
