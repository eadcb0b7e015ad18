/**
 * The scheduler section binds every pod without a node it sees, not only its own: a pod a user creates beside a run
 * (`kubectl run` against `serve`) is bound too. Its result counts the two apart, so the summary never says
 * "201 of 200 pods bound".
 */
import { Effect, Schema } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { Pods } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { renderSections } from "../../reports/summary.js"
import { SchedulerSection, schedulerScenarioEffect } from "../../simulator/scheduler/SchedulerScenario.js"
import { runSim } from "./sim.js"

describe("scheduler section binds", () => {
  it("counts its own pods bound apart from the pods others created", () => {
    const section = Schema.decodeUnknownSync(SchedulerSection)({
      seed: 3,
      duration: "30s",
      nodes: [{ count: 3, cpu: "8", memory: "32Gi" }],
      replicas: 1,
      batches: [{ count: 20, rate: 10, cpu: "100m", memory: "128Mi", namePrefix: "web" }]
    })
    const r = runSim(
      Effect.gen(function* () {
        const client = yield* ApiClient
        // a user's pod, created while the section runs
        yield* Effect.forkScoped(
          Effect.zipRight(
            Effect.sleep("5 seconds"),
            client.create(Pods, { metadata: { name: "users-own", namespace: "default" }, spec: { containers: [{ name: "c", image: "busybox" }] } }, { namespace: "default" })
          )
        )
        return yield* schedulerScenarioEffect(section)
      }),
      { seed: 3 }
    )
    expect([r.podsCreated, r.binds, r.podsBound, r.otherPodsBound]).toEqual([20, 21, 20, 1])
    expect(renderSections({ scheduler: r })[0]).toBe("scheduler: bound 20 of the 20 pods it created and 1 pod created by others")
  })

  it("an artifact from before the split still reads right: binds past the pods created are others' pods", () => {
    expect(renderSections({ scheduler: { podsCreated: 200, binds: 201, leaseTransitions: 1 } })[0]).toBe(
      "scheduler: bound 200 of the 200 pods it created and 1 pod created by others, 1 leader transition"
    )
  })
})
