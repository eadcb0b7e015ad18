import { Effect } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { Leases, Nodes, Pods } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { controlPlaneWorkload } from "../../simulator/scheduler/ControlPlane.js"
import { runSim } from "./sim.js"

describe("controlPlaneWorkload", () => {
  it("two replicas from the default configuration: one leader schedules; the workload needs only ApiClient", () => {
    const r = runSim(
      Effect.gen(function* () {
        const client = yield* ApiClient
        yield* Effect.orDie(client.create(Nodes, { metadata: { name: "n1" }, status: { allocatable: { cpu: "4", memory: "8Gi", pods: "110" } } }))
        const scheduled: number[] = [0, 0]
        const cores: Array<{ stats: { scheduled: number } }> = []
        const workload: Effect.Effect<void, never, ApiClient> = controlPlaneWorkload({ replicas: 2, onScheduler: (i, core) => (cores[i] = core) })
        yield* Effect.forkScoped(workload)
        for (let i = 0; i < 5; i++)
          yield* Effect.orDie(client.create(Pods, { metadata: { name: `p${i}`, namespace: "default" }, spec: { containers: [{ name: "c", image: "i" }] } }, { namespace: "default" }))
        yield* Effect.sleep("10 seconds")
        cores.forEach((c, i) => (scheduled[i] = c.stats.scheduled))
        const lease = yield* Effect.orDie(client.get(Leases, "platform-scheduler", { namespace: "platform-system" }))
        return { scheduled, holder: (lease.spec as { holderIdentity: string }).holderIdentity }
      })
    )
    expect(r.scheduled.reduce((a, b) => a + b, 0)).toBe(5)
    expect(r.scheduled.filter((n) => n > 0)).toHaveLength(1)
    expect(r.holder).toMatch(/^platform-scheduler-[01]_/)
  })
})
