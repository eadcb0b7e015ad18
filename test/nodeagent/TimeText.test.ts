/**
 * `TimeText`, the agents' time stamps, against the general rendering it stands for (`reference`: the second's
 * `rfc3339` text with the µs joined, `SystemMeta.microTime` past the second's last µs): renewTimes made from
 * character codes, and a whole millisecond's text kept for the rest of its second, give the same text for every
 * instant — in time order as a shard makes them, back and forth between seconds, for years of other widths.
 */
import { describe, expect, it } from "@effect/vitest"
import { readSecondOf, secondOf } from "../../simulator/apiserver/CompactMicroTime.js"
import { microTime, rfc3339 } from "../../simulator/apiserver/SystemMeta.js"
import * as SeededRandom from "../../simulator/kernel/SeededRandom.js"
import { TimeText } from "../../simulator/nodeagent/TimeText.js"

/** The text of `ms` as joined parts (the general path): the second's date, its µs as six digits. */
const reference = (ms: number): string => {
  const second = Math.floor(ms / 1000)
  const micros = Math.round((ms - second * 1000) * 1000)
  return micros >= 1_000_000 ? microTime(ms) : `${rfc3339(second * 1000).slice(0, -1)}.${String(micros).padStart(6, "0")}Z`
}

describe("TimeText", () => {
  it("makes the general path's text for every instant: whole and fractional ms, in time order and out of it", () => {
    const text = new TimeText()
    const random = SeededRandom.make(39)
    const start = Date.UTC(2026, 0, 1, 23, 59, 58)
    const instants: Array<number> = []
    // a shard's renewals: due at whole ms, a few per ms, over a change of second, minute, hour, day and year
    for (let ms = start; ms < start + 4_000; ms += Math.floor(random.next() * 3)) instants.push(ms)
    // the ensure path's fractional starts (a GET's modelled end), the last µs of a second, and its first
    for (let i = 0; i < 2_000; i++) instants.push(start + random.next() * 4_000)
    instants.push(start + 999.999, start + 999.9996, start + 1_000, start + 1_000.0004, start + 0.001)
    // back and forth between seconds: a millisecond's text kept in one second is not another second's
    for (let i = 0; i < 2_000; i++) instants.push(start + Math.floor(random.next() * 3) * 1_000 + Math.floor(random.next() * 5))
    const differing = instants.filter((ms) => text.micro(ms) !== reference(ms))
    expect(differing).toEqual([])
    expect(instants.length).toBeGreaterThan(6_000)
    // seconds() between micro() calls of the same and of other seconds
    for (const ms of [start + 10, start + 1_010, start + 10.5, start + 2_999.9995]) {
      expect([text.seconds(ms), text.micro(ms), text.seconds(ms)]).toEqual([rfc3339(ms), reference(ms), rfc3339(ms)])
    }
  })

  it("makes the texts of years of every width as the general path does (microTime's for whole ms of years 0 to 9999), and the server knows each one's second", () => {
    const text = new TimeText()
    for (const year of [-1, 0, 1, 99, 999, 1000, 1969, 1970, 2026, 9999, 10_000, 275_000])
      for (const ms of [0, 0.001, 1, 999, 999.999, 59_999.5, 86_399_999]) {
        const instant = new Date(Date.UTC(2000, 0, 1)).setUTCFullYear(year) + ms
        if (Number.isNaN(instant)) continue
        const made = text.micro(instant)
        expect([instant, made]).toEqual([instant, reference(instant)])
        if (year >= 0 && year <= 9999 && Number.isInteger(ms)) expect(made).toBe(microTime(instant))
        expect([made, secondOf(made)]).toEqual([made, readSecondOf(made)])
        // twice in a row: the kept text
        expect(text.micro(instant)).toBe(made)
      }
  })

  it("gives a millisecond's renewals of one second one text, and makes a fresh one in the next second", () => {
    const text = new TimeText()
    const at = Date.UTC(2026, 5, 1, 12, 0, 0, 250)
    const first = text.micro(at)
    expect(text.micro(at)).toBe(first)
    expect(text.micro(at + 1_000)).toBe(microTime(at + 1_000))
    expect(text.micro(at)).toBe(first)
    expect(first).toBe("2026-06-01T12:00:00.250000Z")
  })
})
