/**
 * The virtual-time model's `apiserver_flowcontrol_*` series (simulator/apiserver/ModelledFlowControlMetrics.ts): the
 * model's bookings counted as serve counts the filter's decisions, and the gauges read at the clock's instant from
 * the bookings' intervals — queued from arrival to start, executing from start to end, a booking for a later
 * arrival neither — however many bookings are in flight.
 */
import { describe, expect, it } from "@effect/vitest"
import { Registry } from "prom-client"
import { PriorityAndFairness } from "../../simulator/apiserver/apf/PriorityAndFairness.js"
import { ModelledFlowControlMetrics } from "../../simulator/apiserver/ModelledFlowControlMetrics.js"

const alice = { user: "alice", groups: ["system:authenticated"], verb: "get", resource: "pods", namespace: "default" }
const aliceWatch = { ...alice, verb: "watch" }
const admin = { user: "admin", groups: ["system:masters"], verb: "get", resource: "pods", namespace: "default" }
const nobody = { user: "nobody", groups: [], verb: "get", resource: "pods", namespace: "default" }
const gd = 'priority_level="global-default",flow_schema="global-default"'

/** 4 + 1 seats: one seat each for global-default and catch-all. */
const setup = () => {
  const registry = new Registry()
  const clock = { now: 0 }
  const apf = new PriorityAndFairness(5)
  apf.observer = new ModelledFlowControlMetrics([registry], () => clock.now, apf.serverConcurrencyLimit)
  const value = async (name: string, labels: string): Promise<number | undefined> => {
    const line = (await registry.metrics()).split("\n").find((l) => l.startsWith(`${name}{${labels}} `))
    return line === undefined ? undefined : Number(line.split(" ")[1])
  }
  return { registry, clock, apf, value }
}

describe("the modelled server's flowcontrol series", () => {
  it("counts dispatches, waits and executions; the gauges see only what is queued or executing at the clock's instant", async () => {
    const { clock, apf, value } = setup()
    expect(apf.book(0, alice, 1, 100)).toMatchObject({ _tag: "Dispatched", start: 0, end: 100 })
    expect(apf.book(0, alice, 1, 100)).toMatchObject({ _tag: "Dispatched", start: 100, end: 200 })
    // booked now for an arrival at 50 (the node agents book ahead): not there yet at 0
    expect(apf.book(50, aliceWatch, 1, 10)).toMatchObject({ _tag: "Dispatched", start: 200, end: 210 })
    const gauges = async () => [await value("apiserver_flowcontrol_current_inqueue_requests", gd), await value("apiserver_flowcontrol_current_executing_requests", gd)]
    expect(await gauges()).toEqual([1, 1])
    clock.now = 150
    expect(await gauges()).toEqual([1, 1])
    clock.now = 205
    expect(await gauges()).toEqual([0, 1])
    clock.now = 210
    expect(await gauges()).toEqual([0, 0])
    expect(await value("apiserver_flowcontrol_dispatched_requests_total", gd)).toBe(3)
    expect(await value("apiserver_flowcontrol_request_wait_duration_seconds_count", `${gd},execute="true"`)).toBe(3)
    expect(await value("apiserver_flowcontrol_request_wait_duration_seconds_sum", `${gd},execute="true"`)).toBeCloseTo(0.25, 9)
    expect(await value("apiserver_flowcontrol_request_wait_duration_seconds_bucket", `le="0",${gd},execute="true"`)).toBe(1)
    expect(await value("apiserver_flowcontrol_request_execution_seconds_count", `${gd},type="regular"`)).toBe(2)
    expect(await value("apiserver_flowcontrol_request_execution_seconds_sum", `${gd},type="watch"`)).toBeCloseTo(0.01, 9)
    expect(await value("apiserver_flowcontrol_nominal_limit_seats", 'priority_level="global-default"')).toBe(1)
    expect(await value("apiserver_flowcontrol_request_concurrency_limit", 'priority_level="workload-low"')).toBe(3)
    expect(await value("apiserver_flowcontrol_nominal_limit_seats", 'priority_level="exempt"')).toBeUndefined()
  })

  it("rejections by reason: a wait past the limit is queued until it times out, then observed with execute=\"false\"", async () => {
    const { clock, apf, value } = setup()
    apf.book(1_000, alice, 1, 20_000)
    expect(apf.book(1_000, alice, 1, 10)).toEqual({ _tag: "Rejected", reason: "time-out", at: 16_000, level: "global-default", flowSchema: "global-default" })
    apf.book(1_000, nobody, 1, 100)
    expect(apf.book(1_000, nobody, 1, 100)).toMatchObject({ _tag: "Rejected", reason: "concurrency-limit" })
    clock.now = 5_000
    expect(await value("apiserver_flowcontrol_current_inqueue_requests", gd)).toBe(1)
    clock.now = 16_000
    expect(await value("apiserver_flowcontrol_current_inqueue_requests", gd)).toBe(0)
    expect(await value("apiserver_flowcontrol_rejected_requests_total", `${gd},reason="time-out"`)).toBe(1)
    expect(await value("apiserver_flowcontrol_rejected_requests_total", 'priority_level="catch-all",flow_schema="catch-all",reason="concurrency-limit"')).toBe(1)
    // no rejection of that reason: no series (serve's appear on the first)
    expect(await value("apiserver_flowcontrol_rejected_requests_total", `${gd},reason="queue-full"`)).toBeUndefined()
    expect(await value("apiserver_flowcontrol_request_wait_duration_seconds_sum", `${gd},execute="false"`)).toBe(15)
    expect(await value("apiserver_flowcontrol_request_wait_duration_seconds_bucket", `le="30",${gd},execute="false"`)).toBe(1)
    expect(await value("apiserver_flowcontrol_request_wait_duration_seconds_bucket", `le="10",${gd},execute="false"`)).toBe(0)
  })

  it("keeps only what may still be in flight: thousands of bookings, the gauges exact", async () => {
    const { clock, apf, value } = setup()
    const exempt = 'priority_level="exempt",flow_schema="exempt"'
    // one a millisecond, each executing for a second (exempt: never queued)
    for (let t = 0; t < 20_000; t++) {
      clock.now = t
      apf.book(t, admin, 1, 1_000)
    }
    expect(await value("apiserver_flowcontrol_current_executing_requests", exempt)).toBe(1_000)
    clock.now = 20_500
    expect(await value("apiserver_flowcontrol_current_executing_requests", exempt)).toBe(499)
    expect(await value("apiserver_flowcontrol_dispatched_requests_total", exempt)).toBe(20_000)
    expect(await value("apiserver_flowcontrol_current_inqueue_requests", exempt)).toBeUndefined()
  })
})
