/** The run pipeline's once-for-every-driver parts: the outcome, the cause in one line, the driver chosen. */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Data } from "effect"
import { causeText, driverFor, outcomeOf } from "../../app/cli/RunPipeline.js"
import type { Scenario } from "../../app/scenario/Scenario.js"

class Boom extends Data.TaggedError("Boom")<{ readonly message: string }> {}

describe("run pipeline", () => {
  it("a stop wins over a failure, a failure over completion", () => {
    expect(outcomeOf({ stopped: "SIGTERM", error: Cause.fail("late") })).toEqual({ interrupted: "SIGTERM" })
    expect(outcomeOf({ error: Cause.fail(new Boom({ message: "setup failed: 1 of 2 creates failed" })) })).toEqual({ error: "setup failed: 1 of 2 creates failed" })
    expect(outcomeOf({})).toBe("completed")
  })

  it("words a cause in one line: an error's message, a failed string, else the first line of a defect", () => {
    expect(causeText(Cause.fail("invalid cluster spec: nodes: expected a number"))).toBe("invalid cluster spec: nodes: expected a number")
    expect(causeText(Cause.fail(new Boom({ message: "boom" })))).toBe("boom")
    expect(causeText(Cause.die(new Error("bad\nstack")))).toBe("Error: bad")
  })

  it("picks the driver by the scenario's sections and the target flags", () => {
    const load = { phases: [] } as unknown as Scenario
    const cluster = { phases: [], cluster: { nodes: 1 } } as unknown as Scenario
    expect(driverFor(load, { _tag: "in-process" }).name).toBe("load-only")
    expect(driverFor(cluster, { _tag: "in-process" }).name).toBe("virtual-time cluster")
    expect(driverFor(cluster, { _tag: "embedded", explicit: true, serverProcess: "own" }).name).toBe("real-time cluster")
    expect(driverFor(cluster, { _tag: "url", options: { baseUrl: "http://127.0.0.1:1" } }).name).toBe("real-time cluster")
  })
})
