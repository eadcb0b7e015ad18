/** The Deployment controller's arithmetic against upstream's rules (deployment_util.go, rolling.go, sync.go, progress.go). */
import { describe, expect, it } from "@effect/vitest"
import type { KObject } from "../../../src/api/Object.js"
import {
  computeHash,
  deploymentView,
  maxSurgeOf,
  maxUnavailableOf,
  newRSNewReplicas,
  oldReplicaSetScaleDowns,
  replicaSetsToCleanUp,
  resolveFenceposts,
  rolloutStatus,
  safeEncodeString,
  scaleSizes,
  setCondition,
  type RsView
} from "../../../simulator/controllers/deployment/DeploymentSync.js"

const rs = (name: string, replicas: number, available = replicas, extra: Partial<RsView> = {}): RsView => ({
  name,
  created: 0,
  replicas,
  statusReplicas: replicas,
  readyReplicas: available,
  availableReplicas: available,
  annotations: {},
  ...extra
})

const d = (replicas: number, rollingUpdate?: Record<string, unknown>, status?: unknown): KObject => ({
  metadata: { name: "web", generation: 1 },
  spec: { replicas, selector: { matchLabels: { app: "web" } }, template: {}, ...(rollingUpdate ? { strategy: { type: "RollingUpdate", rollingUpdate } } : {}) },
  ...(status ? { status } : {})
})

describe("DeploymentSync", () => {
  it("defaults as SetDefaults_Deployment: 1 replica, RollingUpdate 25 % / 25 %, 10 revisions, 600 s deadline", () => {
    expect(deploymentView({ metadata: {}, spec: {} })).toMatchObject({
      replicas: 1,
      strategy: "RollingUpdate",
      maxSurge: "25%",
      maxUnavailable: "25%",
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      paused: false
    })
  })

  it("ResolveFenceposts: surge rounds up, unavailable down, 0/0 becomes 0/1; MaxUnavailable capped at replicas, 0 for Recreate", () => {
    expect(resolveFenceposts("25%", "25%", 10)).toEqual({ surge: 3, unavailable: 2 })
    expect(resolveFenceposts("25%", "25%", 1)).toEqual({ surge: 1, unavailable: 0 })
    expect(resolveFenceposts(0, 0, 5)).toEqual({ surge: 0, unavailable: 1 })
    expect(resolveFenceposts("0%", "0%", 5)).toEqual({ surge: 0, unavailable: 1 })
    expect(maxUnavailableOf(deploymentView(d(2, { maxSurge: 0, maxUnavailable: 5 })))).toBe(2)
    expect(maxUnavailableOf(deploymentView({ metadata: {}, spec: { replicas: 4, strategy: { type: "Recreate" } } }))).toBe(0)
    expect(maxSurgeOf(deploymentView(d(10)))).toBe(3)
  })

  it("NewRSNewReplicas: the new set grows to replicas + maxSurge pods in all, never past replicas", () => {
    const view = deploymentView(d(10))
    expect(newRSNewReplicas(view, [rs("old", 10), rs("new", 0)], rs("new", 0))).toBe(3)
    expect(newRSNewReplicas(view, [rs("old", 8), rs("new", 3)], rs("new", 3))).toBe(5)
    expect(newRSNewReplicas(view, [rs("old", 10), rs("new", 3)], rs("new", 3))).toBe(3)
    expect(newRSNewReplicas(view, [rs("old", 0), rs("new", 9)], rs("new", 9))).toBe(10)
  })

  it("reconcileOldReplicaSets: unhealthy old pods first, then available ones down to replicas − maxUnavailable", () => {
    const view = deploymentView(d(10))
    // 10 old available, 3 new not yet available: 13 − 8 − 3 = 2 may go, and 10 available − 8 minimum = 2
    expect(oldReplicaSetScaleDowns(view, [rs("old", 10), rs("new", 3, 0)], [rs("old", 10)], rs("new", 3, 0))).toEqual([{ name: "old", to: 8 }])
    // nothing may go while the new pods are unavailable and only the minimum is available
    expect(oldReplicaSetScaleDowns(view, [rs("old", 8), rs("new", 5, 0)], [rs("old", 8)], rs("new", 5, 0))).toEqual([])
    // an old set's unavailable pods go first, whatever the availability
    expect(oldReplicaSetScaleDowns(view, [rs("old", 10, 6), rs("new", 3, 3)], [rs("old", 10, 6)], rs("new", 3, 3))).toEqual([{ name: "old", to: 5 }])
  })

  it("scale: one active set takes the count; otherwise proportions by max-replicas, the leftover to the largest", () => {
    const ten = deploymentView(d(10))
    expect(scaleSizes(ten, rs("new", 5, 5, { annotations: {} }), [], 5)).toEqual([{ name: "new", to: 10 }])
    // 5 → 10 replicas (maxSurge 25 %: max 7 → 13) mid-rollout: new 3 and old 4, sized at max-replicas 7
    const annotations = { "deployment.kubernetes.io/max-replicas": "7", "deployment.kubernetes.io/desired-replicas": "5" }
    const sizes = scaleSizes(ten, rs("new", 3, 0, { created: 2, annotations }), [rs("old", 4, 4, { created: 1, annotations })], 7)
    // old: round(4 × 13 / 7) = 7 (+3), new: round(3 × 13 / 7) = 6 (+3); 6 were to be added: none left over
    expect(sizes).toEqual([
      { name: "old", to: 7 },
      { name: "new", to: 6 }
    ])
  })

  it("setCondition: the same status and reason is no change; the same status keeps the transition time", () => {
    const a = { type: "Available", status: "True", reason: "R", lastTransitionTime: "t1", lastUpdateTime: "t1" }
    expect(setCondition([a], { ...a, lastTransitionTime: "t2", lastUpdateTime: "t2" })).toEqual([a])
    expect(setCondition([a, { type: "Progressing", status: "True" }], { ...a, reason: "S", lastTransitionTime: "t2", lastUpdateTime: "t2" })).toEqual([
      { type: "Progressing", status: "True" },
      { ...a, reason: "S", lastUpdateTime: "t2" }
    ])
  })

  it("syncRolloutStatus: progressing, then NewReplicaSetAvailable; ProgressDeadlineExceeded when nothing moved for the deadline", () => {
    const created = { type: "Progressing", status: "True", reason: "NewReplicaSetCreated", message: 'Created new replica set "web-1"', lastUpdateTime: "2026-01-01T00:00:00Z", lastTransitionTime: "2026-01-01T00:00:00Z" }
    const fresh = d(2, undefined, { conditions: [created] })
    const partway = rolloutStatus(fresh, [rs("web-1", 2, 1)], rs("web-1", 2, 1), Date.parse("2026-01-01T00:00:05Z"), "2026-01-01T00:00:05Z")
    expect(partway).toMatchObject({ observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 1, availableReplicas: 1, unavailableReplicas: 1 })
    // 2 replicas at 25 %: maxUnavailable 0, so 1 available is below the minimum
    expect(partway.conditions).toEqual([
      {
        type: "Available",
        status: "False",
        reason: "MinimumReplicasUnavailable",
        message: "Deployment does not have minimum availability.",
        lastUpdateTime: "2026-01-01T00:00:05Z",
        lastTransitionTime: "2026-01-01T00:00:05Z"
      },
      {
        type: "Progressing",
        status: "True",
        reason: "ReplicaSetUpdated",
        message: 'ReplicaSet "web-1" is progressing.',
        lastUpdateTime: "2026-01-01T00:00:05Z",
        lastTransitionTime: "2026-01-01T00:00:00Z"
      }
    ])
    const done = rolloutStatus({ ...fresh, status: partway }, [rs("web-1", 2, 2)], rs("web-1", 2, 2), Date.parse("2026-01-01T00:00:06Z"), "2026-01-01T00:00:06Z")
    expect(done.conditions!.find((c) => c.type === "Progressing")).toMatchObject({ reason: "NewReplicaSetAvailable", message: 'ReplicaSet "web-1" has successfully progressed.' })
    const stuck = rolloutStatus({ ...fresh, status: { ...partway } }, [rs("web-1", 2, 1)], rs("web-1", 2, 1), Date.parse("2026-01-01T00:10:06Z"), "2026-01-01T00:10:06Z")
    expect(stuck.conditions!.find((c) => c.type === "Progressing")).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded", message: 'ReplicaSet "web-1" has timed out progressing.' })
  })

  it("ComputeHash: decimal FNV-32a safe-encoded (no vowels), changed by the collision count; cleanup keeps revisionHistoryLimit", () => {
    expect(safeEncodeString("0123456789")).toBe("456789bcdf")
    const h = computeHash({ spec: { containers: [{ name: "a" }] } }, undefined)
    expect(h).toMatch(/^[456789bcdf]{1,10}$/)
    expect(computeHash({ spec: { containers: [{ name: "a" }] } }, 1)).not.toBe(h)
    expect(computeHash({ spec: { containers: [{ name: "a" }] }, metadata: {} }, undefined)).not.toBe(h)
    const olds = [1, 2, 3].map((r) => rs(`o${r}`, 0, 0, { annotations: { "deployment.kubernetes.io/revision": String(r) } }))
    expect(replicaSetsToCleanUp(deploymentView({ metadata: {}, spec: { revisionHistoryLimit: 1 } }), olds)).toEqual(["o1", "o2"])
  })
})
