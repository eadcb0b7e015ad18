/**
 * The small fast paths of a lease renewal (issue 39) against the general code they stand for, on the same inputs:
 * a booking that starts at once (`PriorityAndFairness.placeAtOnce`) books and counts what `place` does; a renewTime
 * kept as an integer (`CompactMicroTime.ts`) gives its text back; the MicroTime check by character codes accepts
 * what the canonical RegExp accepts; the key-order check without `Object.keys` answers as with it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Leases, Pods } from "../../src/api/Resources.js"
import { nodeLeaseNamespace } from "../../src/api/WellKnown.js"
import { decodesAsMicroTime } from "../../src/api/kinds/FieldSchema.js"
import { decodesInSecond, microsOf, microTimeOf, readSecondOf, secondOf } from "../../simulator/apiserver/CompactMicroTime.js"
import { TimeText } from "../../simulator/nodeagent/TimeText.js"
import { sameKeyOrder } from "../../simulator/apiserver/RenewedVersion.js"
import { Completion, defaultParameters, ServiceTimeModel } from "../../simulator/apiserver/ServiceTimeModel.js"
import { microTime } from "../../simulator/apiserver/SystemMeta.js"
import * as SeededRandom from "../../simulator/kernel/SeededRandom.js"

describe("a booking that starts at once", () => {
  /** The same bookings on a model whose observer sends every booking the general way, and on one without. */
  const both = () => {
    const params = { ...defaultParameters, maxRequestsInflight: 6, maxMutatingRequestsInflight: 3, writeBaseMs: 1_000, perKiBMs: 0 }
    const general = new ServiceTimeModel(params)
    const served: Array<string> = []
    general.observer = { served: (r, code, arrival, start, end) => void served.push(`${r.verb} ${code} ${arrival} ${start} ${end}`) }
    return { general, fast: new ServiceTimeModel(params), served }
  }

  it("ends, gives up and counts per level as the general booking does, in a storm that queues and rejects", () => {
    const { general, fast, served } = both()
    const random = SeededRandom.make(39)
    const identities = Array.from({ length: 40 }, (_, i) => ({ user: `system:node:node-${i}`, groups: ["system:nodes", "system:authenticated"] }))
    const into = [new Completion(), new Completion()] as const
    let at = 0
    for (let i = 0; i < 3_000; i++) {
      // bursts at one instant (queued, then rejected), then quiet stretches (every request starts at once)
      at += i % 200 < 120 ? 0 : random.next() * 50
      const who = identities[Math.floor(random.next() * identities.length)]!
      const lease = random.next() < 0.7
      const verb = lease ? "update" : "patch"
      const [g, f] = [general, fast].map((m) => m.requests.of(verb, lease ? Leases : Pods, lease ? nodeLeaseNamespace : "default", lease ? undefined : "status", who))
      const bytes = Math.floor(random.next() * 4_000)
      const a = general.complete(at, "mutating", 0, bytes, g, into[0])
      const b = fast.complete(at, "mutating", 0, bytes, f, into[1])
      expect({ end: b.end, givenUp: b.givenUp }).toEqual({ end: a.end, givenUp: a.givenUp })
    }
    expect(fast.givenUp).toBe(general.givenUp)
    expect(general.givenUp).toBeGreaterThan(0)
    expect(fast.apf!.metrics()).toEqual(general.apf!.metrics())
    // the general model saw every answer: dispatched ones and 429s
    expect(served.some((s) => s.includes(" 429 "))).toBe(true)
    expect(served.filter((s) => s.includes(" 200 ")).length).toBe(Object.values(fast.apf!.metrics()).reduce((n, l) => n + l.dispatched, 0))
  })
})

describe("CompactMicroTime", () => {
  it("gives back every text it reads as numbers, and reads the canonical text of any instant of years 100 to 9999", () => {
    const instant = Date.UTC(2026, 0, 1, 0, 0, 5)
    const read = (text: string) => {
      const second = secondOf(text)
      return second === second ? microTimeOf(second, microsOf(text)) : undefined
    }
    for (const deltaMs of [0, 0.001, 0.5, 1, 999.999, 1_000, 1_500.25, -0.001, -1, -1_500.25, 999_999.999, 86_400_000, -3e11, 2.5e11, 7.9e12 - instant]) {
      const text = microTime(instant + deltaMs)
      expect([text, read(text)]).toEqual([text, text])
      expect(secondOf(text)).toBe(Math.floor((instant + deltaMs) / 1000))
      expect(microsOf(text)).toBe(Number(text.slice(20, 26)))
    }
    expect(read("0999-01-01T00:00:05.000001Z")).toBe("0999-01-01T00:00:05.000001Z")
    // in time order, as renewals come: the same texts back
    for (let ms = instant; ms < instant + 5_000; ms += 0.75) expect(read(microTime(ms))).toBe(microTime(ms))
    // texts it cannot give back exactly stay texts
    for (const text of ["0026-01-01T00:00:05.000000Z", "2026-01-01T00:00:05.00000Z", "2026-01-01T00:00:05.0000000Z", "2026-01-01T00:00:05.000000z", "2026-01-01 00:00:05.000000Z", "2026-01-01T00:00:05.00a000Z", "2026-02-30T00:00:05.000000Z"]) {
      expect([text, secondOf(text)]).toEqual([text, Number.NaN])
    }
  })
})

describe("a renewTime an agent made (TimeText.micro, CompactMicroTime.knownMicroTime)", () => {
  it("has the second reading it gives, for instants of any year, whole and fractional ms", () => {
    const text = new TimeText()
    const instants: Array<number> = []
    for (const year of [1, 50, 99, 100, 999, 1000, 1969, 1970, 2026, 9999])
      for (const ms of [0, 0.001, 1, 999.999, 1_000, 59_999.5, 86_399_999]) instants.push(new Date(Date.UTC(2000, 0, 1)).setUTCFullYear(year) + ms)
    let known = 0
    for (const ms of instants) {
      const made = text.micro(ms)
      const read = readSecondOf(made)
      expect([ms, made, secondOf(made)]).toEqual([ms, made, read])
      if (read === read) known++
      // a text of the same characters is the same text
      expect(secondOf((" " + made).slice(1))).toEqual(read)
    }
    expect(known).toBeGreaterThan(40)
  })
})

describe("decodesInSecond", () => {
  it("answers for a text secondOf reads as decodesAsMicroTime of the text does, in any order of seconds", () => {
    const texts: Array<string> = []
    // the days around every month's end (days 29 to 31 do not decode), hours and minutes at their ends, years 100 to 9999
    for (const year of [100, 999, 1969, 2024, 2026, 9999])
      for (let month = 0; month < 12; month++)
        for (const day of [1, 27, 28, 29, 30, 31]) for (const [h, m, sec] of [[0, 0, 0], [23, 59, 59], [12, 30, 7]] as const) {
          const date = new Date(Date.UTC(2000, month, day, h, m, sec))
          date.setUTCFullYear(year)
          if (date.getUTCDate() !== day) continue
          for (const micros of ["000000", "000001", "999999", "123456"]) texts.push(date.toISOString().slice(0, 20) + micros + "Z")
        }
    const decodes = [0, 0]
    const differing: Array<string> = []
    // each text after every kind of other: the cached second changes between most pairs
    for (const text of [...texts, ...[...texts].reverse()]) {
      const second = secondOf(text)
      if (second !== second || decodesInSecond(second) !== decodesAsMicroTime(text)) differing.push(text)
      decodes[decodesAsMicroTime(text) ? 0 : 1]++
    }
    expect(differing).toEqual([])
    // both answers occur
    expect(decodes[0]).toBeGreaterThan(100)
    expect(decodes[1]).toBeGreaterThan(100)
  })
})

describe("decodesAsMicroTime", () => {
  const canonical = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/
  const plausible = (v: string) => {
    const two = (i: number) => Number(v.slice(i, i + 2))
    return two(5) >= 1 && two(5) <= 12 && two(8) >= 1 && two(8) <= 28 && two(11) < 24 && two(14) < 60 && two(17) < 60
  }

  it("accepts exactly what the canonical RegExp and a plausible date accept", () => {
    const valid = "2026-01-01T00:00:05.123456Z"
    const texts: Array<unknown> = [valid, valid.slice(1), `${valid}\n`, `${valid} `, valid.slice(0, -1), "", 5, undefined, null]
    // every character replaced by each of a few others: digits, separators, letters, a non-ASCII digit
    for (let i = 0; i < valid.length; i++) for (const c of ["0", "9", "1", "3", "-", ":", ".", "T", "Z", "z", "a", " ", "/", "٣"]) texts.push(valid.slice(0, i) + c + valid.slice(i + 1))
    let accepted = 0
    for (const v of texts) {
      const expected = typeof v === "string" && canonical.test(v) && plausible(v)
      expect([v, decodesAsMicroTime(v)]).toEqual([v, expected])
      if (expected) accepted++
    }
    expect(accepted).toBeGreaterThan(50)
  })
})

describe("sameKeyOrder", () => {
  const byKeys = (a: object, b: object) => {
    const keys = Object.keys(b)
    let i = 0
    for (const key in a) if (keys[i++] !== key) return false
    return i === keys.length
  }

  it("answers as a comparison with Object.keys does", () => {
    const objects = [{}, { a: 1 }, { b: 1 }, { a: 1, b: 2 }, { b: 2, a: 1 }, { a: 1, b: 2, c: 3 }, { a: 1, c: 3, b: 2 }, { holderIdentity: "n", leaseDurationSeconds: 40, renewTime: "t" }, { renewTime: "t", holderIdentity: "n", leaseDurationSeconds: 40 }]
    // longer ones first and last, so that the kept list of keys holds stale entries beyond a shorter object's
    for (const a of [...objects].reverse().concat(objects)) for (const b of objects) expect([a, b, sameKeyOrder(a, b)]).toEqual([a, b, byKeys(a, b)])
  })
})
