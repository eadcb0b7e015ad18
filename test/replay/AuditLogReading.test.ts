/**
 * Reading audit logs (src/replay/AuditLine.ts, AuditLogFile.ts, RequestSelection.ts): every class of bad input
 * counted with its file and line and never a crash; one request per auditID; receipt order restored within the
 * window; gzip by content; EventList batches.
 */
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { microTimeOfMs as formatMicroTime, microTimeMs } from "../../src/api/audit/EventTime.js"
import { type BadInput, decodeAuditLine, type LocatedEvent } from "../../src/replay/AuditLine.js"
import { auditLogLines } from "../../src/replay/AuditLogFile.js"
import { RequestSelector, type Selected } from "../../src/replay/RequestSelection.js"
import { auditEvent, lines, t0 } from "./auditEvents.js"

const dir = mkdtempSync(join(tmpdir(), "replay-read-"))

/** Every line of `path` decoded: its events and its bad input. */
const read = async (path: string) => {
  const events: Array<LocatedEvent> = []
  const bad: Array<BadInput> = []
  for await (const { text, line } of auditLogLines(path)) {
    const d = decodeAuditLine(text, { file: path, line })
    events.push(...d.events)
    bad.push(...d.bad)
  }
  return { events, bad }
}

const select = (events: ReadonlyArray<LocatedEvent>, windowMs: number) => {
  const s = new RequestSelector(windowMs)
  const out: Array<Selected> = []
  for (const e of events) out.push(...s.push(e))
  out.push(...s.end())
  return { out, counts: s.counts, requests: out.flatMap((x) => (x._tag === "Request" ? [x.request] : [])) }
}

describe("MicroTime", () => {
  it("keeps microseconds and round-trips upstream's format", () => {
    expect(microTimeMs("2026-01-01T10:00:00.123456Z") - t0).toBeCloseTo(123.456, 3)
    expect(formatMicroTime(t0 + 123.456)).toBe("2026-01-01T10:00:00.123456Z")
    expect(microTimeMs("2026-01-01T12:00:00+02:00")).toBe(t0)
    expect(microTimeMs("yesterday")).toBeNaN()
  })

  it("names no instant for a date Go's time.Parse refuses: a month 13, a 30 February (not rolled over into March)", () => {
    for (const text of ["2026-13-45T10:00:00.000000Z", "2026-02-30T10:00:00.000000Z", "2026-02-30T10:00:00+01:00", "2026-01-01T24:00:00Z"])
      expect(microTimeMs(text), text).toBeNaN()
    expect(microTimeMs("2028-02-29T10:00:00.000000Z")).toBe(Date.parse("2028-02-29T10:00:00Z"))
    expect(microTimeMs("0001-01-01T00:00:00Z")).toBe(Date.parse("0001-01-01T00:00:00Z"))
  })

  it("refuses an impossible date as an invalid event with Go's message, on the fast path as on the Schema's", () => {
    const good = auditEvent({ at: 0, verb: "get", uri: "/api/v1/namespaces/default/configmaps/a" })
    for (const [field, text, message] of [
      ["requestReceivedTimestamp", "2026-13-45T10:00:00.000000Z", 'requestReceivedTimestamp: parsing time "2026-13-45T10:00:00.000000Z": month out of range'],
      ["requestReceivedTimestamp", "2026-02-30T10:00:00.000000Z", 'requestReceivedTimestamp: parsing time "2026-02-30T10:00:00.000000Z": day out of range'],
      ["stageTimestamp", "2026-01-01T10:61:00.000000Z", 'stageTimestamp: parsing time "2026-01-01T10:61:00.000000Z": minute out of range']
    ] as const) {
      const d = decodeAuditLine(JSON.stringify({ ...good, [field]: text }), { file: "f.log", line: 3 })
      expect(d.events, text).toEqual([])
      expect(d.bad, text).toEqual([{ file: "f.log", line: 3, class: "invalid-event", message }])
    }
  })
})

describe("audit log lines", () => {
  it("counts each bad line with its class, file and line number, and reads the good ones around them", async () => {
    const good = auditEvent({ at: 0, verb: "get", uri: "/api/v1/namespaces/default/configmaps/a" })
    const path = join(dir, "bad.log")
    writeFileSync(
      path,
      lines([
        good,
        "this is not json",
        JSON.stringify(auditEvent({ at: 1, verb: "get", uri: "/api/v1/x" })).slice(0, 60), // truncated
        { ...good, apiVersion: "audit.k8s.io/v1beta1" },
        { ...good, kind: "Policy" },
        { ...good, stage: "Finished" },
        { ...good, requestReceivedTimestamp: "later" },
        "",
        "[1,2]",
        auditEvent({ at: 5, verb: "list", uri: "/api/v1/pods" })
      ])
    )
    const { events, bad } = await read(path)
    expect(events.map((e) => [e.line, e.event.verb])).toEqual([
      [1, "get"],
      [10, "list"]
    ])
    expect(bad.map((b) => [b.line, b.class])).toEqual([
      [2, "not-json"],
      [3, "not-json"],
      [4, "api-version"],
      [5, "kind"],
      [6, "invalid-event"],
      [7, "invalid-event"],
      [9, "not-json"]
    ])
    expect(bad.every((b) => b.file === path)).toBe(true)
    expect(bad[2]!.message).toBe('apiVersion "audit.k8s.io/v1beta1" is not audit.k8s.io/v1')
    expect(bad[3]!.message).toBe('kind "Policy" is not Event or EventList')
    expect(bad[4]!.message).toMatch(/^stage: Expected "RequestReceived" \| "ResponseStarted" \| "ResponseComplete" \| "Panic", actual "Finished"/)
    expect(bad[5]!.message).toMatch(/^requestReceivedTimestamp: not an RFC 3339 time: "later"/)
  })

  it("reads gzip by its magic bytes, whatever the name, and reports a gzip file cut short where it stopped", async () => {
    const text = lines([auditEvent({ at: 0, verb: "get", uri: "/api/v1/pods" }), auditEvent({ at: 1, verb: "list", uri: "/api/v1/pods" })])
    const path = join(dir, "rotated.log") // no .gz
    writeFileSync(path, gzipSync(text))
    const { events, bad } = await read(path)
    expect(events.map((e) => e.event.verb)).toEqual(["get", "list"])
    expect(bad).toEqual([])
    const cut = join(dir, "cut.log.gz")
    writeFileSync(cut, gzipSync(text).subarray(0, 40))
    await expect(read(cut)).rejects.toThrow(/unexpected end of file/)
  })

  it("reads the webhook backend's EventList batches, an item that is not an event counted with its index", async () => {
    const list = {
      kind: "EventList",
      apiVersion: "audit.k8s.io/v1",
      metadata: {},
      items: [auditEvent({ at: 0, verb: "get", uri: "/api/v1/pods/a" }), { kind: "Event", apiVersion: "audit.k8s.io/v1" }, auditEvent({ at: 1, verb: "get", uri: "/api/v1/pods/b" })]
    }
    const d = decodeAuditLine(JSON.stringify(list), { file: "hook.log", line: 7 })
    expect(d.events.map((e) => [e.line, e.event.requestURI])).toEqual([
      [7, "/api/v1/pods/a"],
      [7, "/api/v1/pods/b"]
    ])
    expect(d.bad.map((b) => [b.line, b.class, b.message.split(":")[0]])).toEqual([[7, "invalid-event", "items[1]"]])
  })
})

describe("RequestSelector", () => {
  const at = (e: Record<string, unknown>, line: number): LocatedEvent => ({ file: "f", line, event: e as never })

  it("keeps ResponseComplete once per auditID: RequestReceived ignored, a repeated event counted as a duplicate", () => {
    const rr = auditEvent({ at: 0, verb: "get", uri: "/api/v1/pods/a", stage: "RequestReceived", id: "x" })
    const rc = auditEvent({ at: 0, verb: "get", uri: "/api/v1/pods/a", id: "x", code: 404, latencyMs: 7 })
    const { requests, counts } = select([at(rr, 1), at(rc, 2), at(rc, 3)], 1000)
    expect(requests.map((r) => [r.line, r.recordedCode, r.recordedLatencyMs])).toEqual([[2, 404, 7]])
    expect(counts).toEqual({ requestReceived: 1, duplicates: 1, lateBeyondWindow: 0 })
  })

  it("takes a watch's ResponseStarted, and its ResponseComplete as its end: its duration when in the window, an End after it, in time order", () => {
    const started = (id: string) => auditEvent({ at: 0, verb: "watch", uri: "/api/v1/pods?watch=true", stage: "ResponseStarted", id, latencyMs: 3 })
    const ended = (id: string, ms: number) => auditEvent({ at: 0, verb: "watch", uri: "/api/v1/pods?watch=true", id, latencyMs: ms })
    const short = select([at(started("w"), 1), at(ended("w", 500), 2)], 1000)
    expect(short.requests.map((r) => [r.longRunning, r.recordedLatencyMs, r.holdMs])).toEqual([[true, 3, 500]])
    // a long watch: released open, then ended by its ResponseComplete read later; the end waits for the window like a
    // request, so what comes out is in time order (the sender reads on only when the next entry could be due)
    const filler = auditEvent({ at: 5000, verb: "get", uri: "/api/v1/pods/a" })
    const after = auditEvent({ at: 61_500, verb: "get", uri: "/api/v1/pods/b" })
    const long = select([at(started("l"), 1), at(filler, 2), at(ended("l", 60_000), 3), at(after, 4)], 1000)
    expect(long.out.map((x) => (x._tag === "Request" ? `req ${x.request.event.verb} ${x.request.scheduleMs - t0} hold=${x.request.holdMs}` : `end ${x.auditID} ${x.atMs - t0}`))).toEqual([
      "req watch 0 hold=undefined",
      "req get 5000 hold=undefined",
      "end l 60000",
      "req get 61500 hold=undefined"
    ])
  })

  it("restores receipt order within the window; past it, a request keeps log order, marked late", () => {
    // the log backend writes at completion: a slow LIST received first is written after two fast GETs
    const slow = auditEvent({ at: 0, verb: "list", uri: "/api/v1/pods", latencyMs: 900 })
    const a = auditEvent({ at: 100, verb: "get", uri: "/api/v1/pods/a" })
    const b = auditEvent({ at: 200, verb: "get", uri: "/api/v1/pods/b" })
    const inWindow = select([at(a, 1), at(b, 2), at(slow, 3)], 1000)
    expect(inWindow.requests.map((r) => [r.line, r.receivedMs - t0, r.late])).toEqual([
      [3, 0, false],
      [1, 100, false],
      [2, 200, false]
    ])
    // a window of 50 ms: the GETs were released before the LIST was read
    const later = auditEvent({ at: 3000, verb: "get", uri: "/api/v1/pods/c" })
    const narrow = select([at(a, 1), at(b, 2), at(later, 3), at(slow, 4)], 50)
    // the LIST goes where the log has it: after the GET read before it (at the log's time then, its stage)
    expect(narrow.requests.map((r) => [r.line, r.scheduleMs - t0, r.late])).toEqual([
      [1, 100, false],
      [2, 200, false],
      [3, 3000, false],
      [4, 3002, true]
    ])
    expect(narrow.counts.lateBeyondWindow).toBe(1)
  })

  it("sends one event far out of order near the start in log order: it does not become the schedule's start", () => {
    // 10:00:00, then a clock an hour back, then 10:00:02: a 2 s schedule, not an hour's wait after the first request
    const first = auditEvent({ at: 0, verb: "list", uri: "/api/v1/namespaces/default/configmaps", latencyMs: 1 })
    const hourBack = auditEvent({ at: -3_600_000, verb: "list", uri: "/api/v1/namespaces/default/configmaps", latencyMs: 1 })
    const yearOne = { ...auditEvent({ at: 0, verb: "list", uri: "/api/v1/namespaces/default/configmaps" }), requestReceivedTimestamp: "0001-01-01T00:00:00Z", stageTimestamp: "0001-01-01T00:00:00Z" }
    const last = auditEvent({ at: 2000, verb: "list", uri: "/api/v1/namespaces/default/configmaps", latencyMs: 1 })
    for (const odd of [hourBack, yearOne]) {
      const s = select([at(first, 1), at(odd, 2), at(last, 3)], 10_000)
      expect(s.requests.map((r) => [r.line, r.scheduleMs - t0, r.late])).toEqual([
        [1, 0, false],
        [2, 1, true],
        [3, 2000, false]
      ])
      expect(s.counts.lateBeyondWindow).toBe(1)
    }
  })

  it("moves the end of a late watch with it: closed after its recorded time, not at once", () => {
    const started = auditEvent({ at: -3_600_000, verb: "watch", uri: "/api/v1/pods?watch=true", stage: "ResponseStarted", id: "w", latencyMs: 1 })
    const ended = auditEvent({ at: -3_600_000, verb: "watch", uri: "/api/v1/pods?watch=true", id: "w", latencyMs: 30_000 })
    const get = (ms: number) => auditEvent({ at: ms, verb: "get", uri: "/api/v1/pods/a", latencyMs: 1 })
    const s = select([at(get(0), 1), at(started, 2), at(get(20_000), 3), at(ended, 4), at(get(40_000), 5), at(get(60_000), 6)], 10_000)
    expect(s.out.map((x) => (x._tag === "End" ? `end ${x.atMs - t0}` : `${x.request.event.verb} ${x.request.scheduleMs - t0}`))).toEqual([
      "get 0",
      "watch 1",
      "get 20000",
      "end 30001",
      "get 40000",
      "get 60000"
    ])
  })

  it("ends a watch whose end the log never shows where upstream's server would have, and forgets it: an hour, or its timeoutSeconds", () => {
    const watch = (id: string, ms: number, query = "") =>
      auditEvent({ at: ms, verb: "watch", uri: `/api/v1/pods?watch=true${query}`, stage: "ResponseStarted", id, latencyMs: 1 })
    const s = new RequestSelector(1000)
    const out: Array<Selected> = []
    let line = 0
    const push = (e: Record<string, unknown>) => out.push(...s.push({ file: "f", line: ++line, event: e as never }))
    push(watch("w1", 0))
    push(watch("w2", 10, "&timeoutSeconds=120"))
    // two hours of GETs, a second apart; the window (1 s) has long passed both watches' receipt
    for (let t = 1000; t <= 7_200_000; t += 1000) {
      push(auditEvent({ at: t, verb: "get", uri: "/api/v1/pods/a" }))
      // w2's end, logged just after its timeout closed it: not a second request
      if (t === 122_000) push(auditEvent({ at: 10, verb: "watch", uri: "/api/v1/pods?watch=true&timeoutSeconds=120", id: "w2", latencyMs: 120_005 }))
    }
    out.push(...s.end())
    const ends = out.flatMap((x) => (x._tag === "End" ? [`${x.auditID} ${x.atMs - t0}`] : []))
    expect(ends).toEqual(["w2 120010", "w1 3600000"])
    // in time order with the requests
    const times = out.map((x) => (x._tag === "End" ? x.atMs : x.request.scheduleMs))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(out.filter((x) => x._tag === "Request" && x.request.event.verb === "watch")).toHaveLength(2)
    expect(s.counts.duplicates).toBe(1)
  })

  it("remembers the watches open within the server's timeout, not every watch of the log", () => {
    const s = new RequestSelector(1000)
    // a watch every 2 s for 3 hours, none ended in the log: at most an hour's (1,800) open at once
    let most = 0
    for (let i = 0; i < 5400; i++) {
      s.push({ file: "f", line: i + 1, event: auditEvent({ at: i * 2000, verb: "watch", uri: "/api/v1/pods?watch=true", stage: "ResponseStarted" }) as never })
      most = Math.max(most, s.remembered)
    }
    // an hour's open watches and, until the next prune, as many ended ones; 5,400 if they were never forgotten
    expect(most).toBeLessThanOrEqual(2 * 1801)
  })

  it("closes nothing by timeout when the log ends first: the replay closes what is still open then", () => {
    const s = new RequestSelector(1000)
    const out = [
      ...s.push({ file: "f", line: 1, event: auditEvent({ at: 0, verb: "watch", uri: "/api/v1/pods?watch=true", stage: "ResponseStarted", id: "w" }) as never }),
      ...s.push({ file: "f", line: 2, event: auditEvent({ at: 5000, verb: "get", uri: "/api/v1/pods/a" }) as never }),
      ...s.end()
    ]
    expect(out.map((x) => x._tag)).toEqual(["Request", "Request"])
  })

  it("holds one window of requests, not the log", () => {
    const s = new RequestSelector(1000)
    let maxHeld = 0
    for (let i = 0; i < 20_000; i++) {
      s.push({ file: "f", line: i + 1, event: auditEvent({ at: i * 10, verb: "get", uri: "/api/v1/pods/a" }) as never })
      maxHeld = Math.max(maxHeld, s.held)
    }
    // 10 ms apart, 1 s window: about 100 held
    expect(maxHeld).toBeLessThanOrEqual(102)
  })
})
