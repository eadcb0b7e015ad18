/**
 * The replay's source of requests (./Replay.ts): the logs read in turn, decoded a slice at a time and put in time
 * order by the reorder window (./RequestSelection.ts).
 */
import type { Event } from "../api/audit/Event.js"
import { AuditLogLines } from "./AuditLogFile.js"
import { decodeAuditLine } from "./AuditLine.js"
import { RequestSelector, type Selected, type SelectionCounts } from "./RequestSelection.js"
import type { ReplayTally } from "./ReplayTally.js"

export interface LogStats {
  file: string
  lines: number
  events: number
}

/**
 * The selected requests of every log in turn, decoded on demand: `advance` decodes at most a given number of
 * lines (the sender does it in the gaps between starts, a slice at a time), `read` reads the next chunk off the
 * event loop. Bad lines go to `tally`; a file that cannot be read on is reported where it stopped and the next one
 * read.
 */
export class SelectedSource {
  private readonly selector: RequestSelector
  private readonly queue: Array<Selected> = []
  private head = 0
  private next = 0
  private lines: AuditLogLines | undefined
  private stats: LogStats | undefined
  private reading: Promise<void> | undefined
  private finished = false

  constructor(
    private readonly logs: ReadonlyArray<string>,
    windowMs: number,
    private readonly tally: ReplayTally,
    private readonly allStats: Array<LogStats>,
    /** What of each event is kept while it waits in the window and the plan (the rest is dropped as it is read). */
    private readonly retain: (e: Event) => Event = (e) => e,
    /** `retain` keeps no recorded answer but a create's: it is not parsed either (AuditLine.ts `withoutResponseObject`). */
    private readonly skipAnswers = false
  ) {
    this.selector = new RequestSelector(windowMs)
  }

  get counts(): SelectionCounts {
    return this.selector.counts
  }

  /** The next selected entry, if it is decoded. */
  peek(): Selected | undefined {
    return this.queue[this.head]
  }

  shift(): Selected | undefined {
    const x = this.queue[this.head]
    if (x === undefined) return undefined
    this.queue[this.head++] = undefined as never
    if (this.head === this.queue.length) {
      this.queue.length = 0
      this.head = 0
    }
    return x
  }

  /** Every log is read and every entry taken. */
  get done(): boolean {
    return this.finished && this.head >= this.queue.length
  }

  /** Decodes up to `maxLines` lines; false when a chunk must be read first (`read`). */
  advance(maxLines: number): boolean {
    for (let n = 0; n < maxLines && !this.finished; ) {
      if (this.lines === undefined && !this.open()) continue
      const l = this.lines!.take()
      if (l === undefined) {
        if (!this.lines!.ended) {
          void this.read()
          return false
        }
        this.closeFile()
        continue
      }
      n++
      const s = this.stats!
      s.lines = l.line
      const decoded = decodeAuditLine(l.text, { file: s.file, line: l.line }, this.skipAnswers)
      for (const b of decoded.bad) this.tally.bad(b)
      for (const e of decoded.events) {
        s.events++
        for (const x of this.selector.push({ file: e.file, line: e.line, event: this.retain(e.event) })) this.queue.push(x)
      }
    }
    return true
  }

  /** Reads the next chunk of the current file; one read at a time (a second call shares the first). */
  read(): Promise<void> {
    if (this.reading !== undefined) return this.reading
    const lines = this.lines
    if (lines === undefined) return Promise.resolve()
    this.reading = lines.fill().then(
      () => void (this.reading = undefined),
      (e) => {
        this.reading = undefined
        // a gzip file cut short, a file that cannot be read: reported where it stopped, the other files still read
        this.cannotRead(e)
        if (this.lines === lines) this.closeFile()
      }
    )
    return this.reading
  }

  /** The next file opened; false when there is none or it cannot be opened (then reported). */
  private open(): boolean {
    const file = this.logs[this.next++]
    if (file === undefined) {
      this.finished = true
      for (const x of this.selector.end()) this.queue.push(x)
      return false
    }
    this.stats = { file, lines: 0, events: 0 }
    this.allStats.push(this.stats)
    try {
      this.lines = new AuditLogLines(file)
      return true
    } catch (e) {
      this.cannotRead(e)
      return false
    }
  }

  private cannotRead(e: unknown): void {
    const s = this.stats!
    this.tally.bad({ file: s.file, line: s.lines + 1, class: "not-json", message: `cannot read on: ${(e as Error).message}` })
  }

  private closeFile(): void {
    this.lines?.close()
    this.lines = undefined
  }

  close(): void {
    this.closeFile()
  }
}
