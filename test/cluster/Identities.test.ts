/**
 * A simulated cluster on an authorizing server: every component under its own identity with the bootstrap roles
 * behaves as with authorization off, and a misconfigured role shows up as the failures a real cluster would have.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ClusterRoleBindings } from "../../src/api/Resources.js"
import { apiserverCredentials, ClientAs } from "../../simulator/apiserver/auth/ComponentIdentities.js"
import { runSimulatedCluster } from "../../simulator/cluster/ClusterRun.js"
import { controlPlaneWorkload } from "../../simulator/scheduler/ControlPlane.js"

const MINUTES = 10 * 60_000

const run = (rbac: boolean, workload: Effect.Effect<void, never, any>) =>
  Effect.runSync(
    runSimulatedCluster({
      spec: { nodes: 5, podsPerNode: 3 },
      faults: [],
      seed: 3,
      durationMs: MINUTES,
      workload,
      ...(rbac ? { server: { authorizationMode: "RBAC" as const } } : {})
    })
  )

describe("components under their own identities", () => {
  it("with the bootstrap roles the cluster runs as with authorization off", () => {
    const open = run(false, controlPlaneWorkload({ replicas: 1 }))
    const authorized = run(true, controlPlaneWorkload({ replicas: 1 }))
    expect(authorized.heartbeats.leaseWrites).toBeGreaterThan(0)
    expect(authorized.heartbeats.failedAttempts).toBe(0)
    expect(authorized.heartbeats.leaseWrites).toBe(open.heartbeats.leaseWrites)
    expect(authorized.nodeStatus.patches).toBe(open.nodeStatus.patches)
    expect(authorized.podStatusWrites).toBe(open.podStatusWrites)
  })

  it("without the system:node binding the node agents' lease writes are refused (403) and nothing heartbeats", () => {
    const broken = Effect.gen(function* () {
      const as = yield* ClientAs
      yield* Effect.orDie(as(apiserverCredentials).delete(ClusterRoleBindings, "system:node"))
    })
    const result = run(true, broken)
    expect(result.heartbeats.leaseWrites).toBe(0)
    expect(result.heartbeats.failedAttempts).toBeGreaterThan(0)
  })
})
