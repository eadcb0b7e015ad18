/**
 * scenarios/relist-watchlist.yaml, small (100 nodes, 1,000 pods, 8 informers) in both modes: the API server restart
 * makes every informer relist, by LIST in the file as it is and by WatchList with `--set
 * clientFeatureGates.WatchListClient=true`, and the modelled peak server memory of each run is what the cost model
 * (docs/watchlist.md) predicts from the pods' sizes — computed here from the objects the server stored, not copied
 * from a run. The full-size runs are in docs/watchlist.md.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { parseScenario } from "../../app/scenario/load.js"
import { makeRunState, runScenario } from "../../app/scenario/Run.js"
import { parseSetOverrides } from "../../app/scenario/SetOverrides.js"
import { simulationOf } from "../../app/scenario/Simulated.js"
import type { KObject } from "../../src/api/Object.js"
import { LatencyRecorder } from "../../src/loadgen/LatencyRecorder.js"
import { jsonLength, storedJsonLength } from "../../simulator/apiserver/JsonLength.js"
import { WatchChannelSize } from "../../simulator/apiserver/RelistMemory.js"
import type { Change } from "../../simulator/apiserver/Store.js"
import { runSimulation, startMillis, type ClusterResult } from "../../simulator/cluster/ClusterRun.js"

const file = "scenarios/relist-watchlist.yaml"
const small = ["cluster.nodes=100", "cluster.podsPerNode=10", "phases[1].actions[0].count=8"]
/** The storm phase (the informers) starts when the settle phase's last probe, its 20th at 19 s, is answered. */
const InformersStartMs = 19_000
const RestartAtMs = 40_000

interface Run {
  readonly cluster: ClusterResult
  /** Each pod's last stored version, and when it was last written (ms since the start). */
  readonly pods: ReadonlyMap<string, { readonly object: KObject; readonly at: number }>
}

const run = (sets: ReadonlyArray<string>): Run => {
  const overrides = parseSetOverrides([...small, ...sets])
  if (Either.isLeft(overrides)) throw new Error(overrides.left)
  const loaded = parseScenario(readFileSync(file, "utf8"), file, "scenarios", { sets: overrides.right })
  if (Either.isLeft(loaded)) throw new Error(loaded.left.message)
  const scenario = loaded.right.scenario
  const pods = new Map<string, { object: KObject; at: number }>()
  const onChange = (c: Change) => {
    if (c.resource.plural !== "pods") return
    if (c.type === "DELETED") pods.delete(c.key)
    else pods.set(c.key, { object: c.object, at: c.time - startMillis })
  }
  const result = Effect.runSync(
    Effect.gen(function* () {
      const recorder = yield* LatencyRecorder.make({ originMs: startMillis })
      const workload = runScenario(scenario, { seed: scenario.seed ?? 1, admin: undefined, state: makeRunState(startMillis) }).pipe(
        Effect.provideService(LatencyRecorder, recorder),
        Effect.orDie,
        Effect.asVoid
      )
      return yield* runSimulation({ ...simulationOf(scenario, scenario.seed ?? 1, "scenarios"), workload, onChange, hostTurns: false })
    }).pipe(Effect.orDieWith((e) => new Error(String(e))))
  )
  return { cluster: result.cluster!, pods }
}

describe("relist-watchlist.yaml: LIST and WatchList relists after an API server restart", () => {
  const list = run([])
  const watchList = run(["clientFeatureGates.WatchListClient=true"])

  it("relists by LIST in the file as it is, by WatchList with the client gate: every informer twice (sync, then after the restart)", () => {
    const l = list.cluster.serverModel!.relistMemory!
    const w = watchList.cluster.serverModel!.relistMemory!
    expect([l.lists.count, l.watchLists.count]).toEqual([16, 0])
    expect([w.lists.count, w.watchLists.count]).toEqual([0, 16])
  })

  it("peaks at the model's prediction from the pods' sizes: a LIST buffers all of them, a stream at most 100", () => {
    for (const r of [list, watchList]) {
      expect(r.pods.size).toBe(1_000)
      // the pods every LIST and stream read are the pods at the end: none written since the informers started
      expect(Math.max(...[...r.pods.values()].map((p) => p.at))).toBeLessThan(InformersStartMs)
    }
    // list items carry no kind/apiVersion (upstream serves them so); watch events' objects do
    const listBytes = [...list.pods.values()].reduce((n, p) => n + storedJsonLength(p.object), 0)
    const streamedBytes = [...watchList.pods.values()].reduce((n, p) => n + jsonLength({ kind: "Pod", apiVersion: "v1", ...p.object }), 0)
    const l = list.cluster.serverModel!.relistMemory!
    const w = watchList.cluster.serverModel!.relistMemory!
    // every read is all 1,000 Running pods from the watch cache (the sync at rv 0, whose limit the cache ignores; the
    // relist at the last rv without one)
    expect(l.lists.largestBytes).toBe(listBytes)
    expect(w.watchLists.largestBytes).toBe(Math.round((streamedBytes / 1_000) * WatchChannelSize))
    expect(l.peakBytes).toBe(l.atPeak.lists * listBytes)
    expect(w.peakBytes).toBe(w.atPeak.watchLists * Math.round((streamedBytes / 1_000) * WatchChannelSize))
    expect(l.peakAtMs).toBeGreaterThanOrEqual(InformersStartMs)
    // ~1,000 ÷ 100 per read in flight
    expect(l.peakBytes / l.atPeak.lists / (w.peakBytes / w.atPeak.watchLists)).toBeGreaterThan(9)
  })

  it("judges the memory budget: the LIST run is within it at this size, both report the figure", () => {
    expect(list.cluster.serverModel!.relistMemory!.peakBytes).toBeLessThan(32 * 1024 * 1024)
    expect(watchList.cluster.serverModel!.relistMemory!.peakBytes).toBeLessThan(list.cluster.serverModel!.relistMemory!.peakBytes)
  })

  it("keeps the nodes' leases and Ready in both modes", () => {
    for (const r of [list, watchList]) {
      expect(r.cluster.nodes).toBe(100)
      expect(r.cluster.heartbeats.leaseWrites).toBeGreaterThan(0)
      expect(r.cluster.faults).toEqual([{ type: "apiserver-restart", at: RestartAtMs, for: 5_000 }])
    }
  })
}, 120_000)
