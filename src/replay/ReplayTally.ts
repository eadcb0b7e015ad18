/**
 * The replay's figures as it runs, in bounded memory: a log-bucketed histogram per (verb, resource, user) — 2 %
 * wide buckets, a few kB each — with at most `maxGroups` groups (the rest under user `(other)`), a few examples per
 * bad-input and mismatch class, throughput in at most `maxBuckets` buckets.
 */
import type { BadInputExample, CodeMismatch, LatencyFigures, ReplayGroup } from "../loadgen/Artifact.js"
import type { BadInput } from "./AuditLine.js"

/** Values from 1 µs to an hour in buckets 2 % apart; counts exact, percentiles within 2 %. */
export class LogHistogram {
  private static readonly ratio = Math.log(1.02)
  private static readonly minMs = 0.001
  private static readonly buckets = Math.ceil(Math.log(3_600_000 / LogHistogram.minMs) / LogHistogram.ratio) + 2
  private readonly counts = new Float64Array(LogHistogram.buckets)
  count = 0
  max = 0

  record(ms: number): void {
    const v = Math.max(0, ms)
    const i = v <= LogHistogram.minMs ? 0 : Math.min(LogHistogram.buckets - 1, 1 + Math.floor(Math.log(v / LogHistogram.minMs) / LogHistogram.ratio))
    this.counts[i]!++
    this.count++
    if (v > this.max) this.max = v
  }

  /** The bucket's upper edge where the `q`-quantile falls, at most the largest value seen. */
  quantile(q: number): number {
    if (this.count === 0) return 0
    const rank = Math.max(1, Math.ceil(q * this.count))
    let seen = 0
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i]!
      if (seen >= rank) return Math.min(this.max, i === 0 ? LogHistogram.minMs : LogHistogram.minMs * Math.exp(i * LogHistogram.ratio))
    }
    return this.max
  }

  figures(): LatencyFigures {
    const round = (x: number) => Math.round(x * 1000) / 1000
    return { count: this.count, p50: round(this.quantile(0.5)), p99: round(this.quantile(0.99)), max: round(this.max) }
  }
}

interface Group {
  readonly verb: string
  readonly resource: string
  readonly user: string
  count: number
  mismatched: number
  readonly recorded: LogHistogram
  readonly replayed: LogHistogram
}

const EXAMPLES = 3

/**
 * Whether a replayed code is the recorded one. A recorded 304 Not Modified is matched by a 200: the client sent
 * `If-None-Match` (kubectl's cached OpenAPI documents), and an audit event does not keep request headers, so the replay
 * asks unconditionally and the same unchanged document comes whole.
 */
export const sameCode = (recorded: number | undefined, replayed: number | undefined): boolean =>
  replayed !== undefined && (recorded === undefined || recorded === replayed || (recorded === 304 && replayed === 200))

export class ReplayTally {
  readonly badByClass: Record<string, number> = {}
  readonly badExamples: Array<BadInputExample> = []
  badTotal = 0
  private readonly groups = new Map<string, Group>()
  private readonly mismatchClasses = new Map<string, { recorded: number | null; replayed: number | string; count: number; examples: Array<CodeMismatch["examples"][number]> }>()
  readonly scheduling = new LogHistogram()
  late = 0
  lateOver5ms = 0
  planned = 0
  sent = 0
  matched = 0
  mismatched = 0
  connectionErrors = 0
  dropped = 0
  synthesized = 0
  longRunning = 0
  private recordedBuckets: Array<number> = []
  private replayedBuckets: Array<number> = []

  constructor(
    /** Throughput bucket width, ms of replay time; set before the first request is counted. */
    public bucketMs: number,
    private readonly maxGroups = 1000,
    private readonly maxBuckets = 100_000
  ) {}

  bad(b: BadInput): void {
    this.badTotal++
    this.badByClass[b.class] = (this.badByClass[b.class] ?? 0) + 1
    // the first few of each class
    if (this.badExamples.filter((x) => x.class === b.class).length < 5) this.badExamples.push({ file: b.file, line: b.line, class: b.class, message: b.message })
  }

  private group(verb: string, resource: string, user: string): Group {
    const key = `${verb}\u0000${resource}\u0000${user}`
    let g = this.groups.get(key)
    if (g === undefined) {
      if (this.groups.size >= this.maxGroups && user !== "(other)") return this.group(verb, resource, "(other)")
      g = { verb, resource, user, count: 0, mismatched: 0, recorded: new LogHistogram(), replayed: new LogHistogram() }
      this.groups.set(key, g)
    }
    return g
  }

  private bump(buckets: Array<number>, atMs: number): void {
    const i = Math.min(this.maxBuckets - 1, Math.max(0, Math.floor(atMs / this.bucketMs)))
    while (buckets.length <= i) buckets.push(0)
    buckets[i]!++
  }

  /** A request the log planned at `offsetMs` of replay time. */
  plannedAt(offsetMs: number): void {
    this.planned++
    this.bump(this.recordedBuckets, offsetMs)
  }

  /** A request sent `latenessMs` after its intended start, at `offsetMs` of replay time. */
  started(offsetMs: number, latenessMs: number): void {
    this.sent++
    this.scheduling.record(latenessMs)
    if (latenessMs > 5) this.lateOver5ms++
    if (latenessMs > 10) this.late++
    this.bump(this.replayedBuckets, offsetMs)
  }

  /** The answer (or its absence) of one replayed request. */
  answered(o: {
    readonly verb: string
    readonly resource: string
    readonly user: string
    readonly recordedCode: number | undefined
    readonly replayedCode: number | undefined
    readonly recordedLatencyMs: number
    readonly replayedLatencyMs: number
    readonly uri: string
    readonly file: string
    readonly line: number
    readonly message?: string
  }): void {
    const g = this.group(o.verb, o.resource, o.user)
    g.count++
    g.recorded.record(o.recordedLatencyMs)
    const match = sameCode(o.recordedCode, o.replayedCode)
    if (o.replayedCode === undefined) this.connectionErrors++
    else if (match) this.matched++
    else this.mismatched++
    if (o.replayedCode !== undefined) g.replayed.record(o.replayedLatencyMs)
    if (match) return
    g.mismatched++
    const replayed = o.replayedCode ?? "connection error"
    const key = `${o.recordedCode ?? "-"}→${replayed}`
    let c = this.mismatchClasses.get(key)
    if (c === undefined) this.mismatchClasses.set(key, (c = { recorded: o.recordedCode ?? null, replayed, count: 0, examples: [] }))
    c.count++
    if (c.examples.length < EXAMPLES) c.examples.push({ verb: o.verb, uri: o.uri, file: o.file, line: o.line, ...(o.message ? { message: o.message } : {}) })
  }

  groupsReport(): ReadonlyArray<ReplayGroup> {
    return [...this.groups.values()]
      .sort((a, b) => b.count - a.count || a.verb.localeCompare(b.verb) || a.resource.localeCompare(b.resource) || a.user.localeCompare(b.user))
      .map((g) => ({ verb: g.verb, resource: g.resource, user: g.user, count: g.count, mismatched: g.mismatched, recorded: g.recorded.figures(), replayed: g.replayed.figures() }))
  }

  mismatchReport(): ReadonlyArray<CodeMismatch> {
    return [...this.mismatchClasses.values()].sort((a, b) => b.count - a.count)
  }

  throughput(): { bucketMs: number; recorded: ReadonlyArray<number>; replayed: ReadonlyArray<number> } {
    const n = Math.max(this.recordedBuckets.length, this.replayedBuckets.length)
    const pad = (a: Array<number>) => [...a, ...Array<number>(n - a.length).fill(0)]
    return { bucketMs: this.bucketMs, recorded: pad(this.recordedBuckets), replayed: pad(this.replayedBuckets) }
  }
}
