import { Effect, Either } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { Leases, Nodes, Pods } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { effectiveConfiguration, parseSchedulerFlags } from "../../simulator/scheduler/options/index.js"
import { runSchedulerInstance } from "../../simulator/scheduler/SchedulerInstance.js"
import { runSim } from "./sim.js"

describe("runSchedulerInstance", () => {
  it("from the effective configuration: elects on platform-system/platform-scheduler with the flag timings, then binds", () => {
    const opts = Either.getOrThrow(parseSchedulerFlags(["--leader-elect-lease-duration=20s", "--leader-elect-renew-deadline=15s"]))
    const config = effectiveConfiguration(opts)
    const r = runSim(
      Effect.gen(function* () {
        const client = yield* ApiClient
        yield* Effect.orDie(client.create(Nodes, { metadata: { name: "n1" }, status: { allocatable: { cpu: "2", memory: "4Gi", pods: "10" } } }))
        yield* Effect.forkScoped(runSchedulerInstance(config, { host: "host-a", uuid: "0000" }))
        yield* Effect.orDie(client.create(Pods, { metadata: { name: "p", namespace: "default" }, spec: { containers: [{ name: "c", image: "i" }] } }, { namespace: "default" }))
        yield* Effect.sleep("3 seconds")
        const lease = yield* Effect.orDie(client.get(Leases, "platform-scheduler", { namespace: "platform-system" }))
        const pod = yield* Effect.orDie(client.get(Pods, "p", { namespace: "default" }))
        return { lease: lease.spec, node: (pod.spec as { nodeName?: string }).nodeName }
      })
    )
    expect(r.lease).toMatchObject({ holderIdentity: "host-a_0000", leaseDurationSeconds: 20 })
    expect(r.node).toBe("n1")
  })
})
