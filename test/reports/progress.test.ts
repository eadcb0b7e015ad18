import { describe, expect, it } from "@effect/vitest"
import { etaText, progressLine } from "../../reports/progress.js"

describe("progress line", () => {
  it("a simulation: percent, virtual time of the total, the ETA from its pace", () => {
    // 25m12s of 60m in 10 s of wall time: the remaining 34m48s at that pace take 13.8 s
    expect(progressLine({ doneMs: 1_512_000, totalMs: 3_600_000, wallMs: 10_000, clock: "virtual" })).toBe("[ 42%] 25m12s / 60m00s virtual · ETA 14 s")
    expect(progressLine({ doneMs: 60_000, totalMs: 3_600_000, wallMs: 5_000, clock: "virtual", detail: "12.0× real time · steady 30 ops 0 errors" })).toBe(
      "[  1%] 1m00s / 60m00s virtual · ETA 4 min 55 s · 12.0× real time · steady 30 ops 0 errors"
    )
  })

  it("on the real clock the ETA is the time left; no pace yet is no ETA; the end is 100 %", () => {
    expect(progressLine({ doneMs: 12_000, totalMs: 30_000, wallMs: 12_000, clock: "real", detail: "phase steady · 50 ops/s · 600 ops · 0 errors" })).toBe(
      "[ 40%] 12s / 30s · ETA 18 s · phase steady · 50 ops/s · 600 ops · 0 errors"
    )
    expect(progressLine({ doneMs: 0, totalMs: 90_000, wallMs: 0, clock: "virtual" })).toBe("[  0%] 0s / 1m30s virtual · ETA —")
    expect(progressLine({ doneMs: 95_000, totalMs: 90_000, wallMs: 900, clock: "virtual" })).toBe("[100%] 1m30s / 1m30s virtual · ETA 0 s")
  })

  it("without a planned length: the time so far, no percent", () => {
    expect(progressLine({ doneMs: 3_000, totalMs: 0, wallMs: 3_000, clock: "real", detail: "phase p" })).toBe("[    ] 3s · phase p")
  })

  it("waits in seconds, minutes, hours", () => {
    expect([0, 400, 59_000, 61_000, 3_599_000, 3_720_000].map(etaText)).toEqual(["0 s", "1 s", "59 s", "1 min 01 s", "59 min 59 s", "1 h 02 min"])
  })
})
