/**
 * An audit log file's lines, streamed: gzip (upstream's rotated logs compressed by logrotate) is recognised by its
 * magic bytes, not its name; a file of any size is read a chunk at a time, never whole (docs/replay.md "Memory").
 *
 * The lines are taken one at a time, synchronously, from the chunk read last (`AuditLogLines.take`), and a chunk is
 * read only when they run out (`fill`): the replay decodes as few lines as it needs between two starts, and reading
 * (and gunzipping) happens off the event loop. Lines end as readline ends them (`\n`, `\r\n`, or a lone `\r`).
 */
import { closeSync, createReadStream, openSync, readSync, statSync } from "node:fs"
import { StringDecoder } from "node:string_decoder"
import { createGunzip } from "node:zlib"
import type { Readable } from "node:stream"

/** gzip's member header starts 1f 8b (RFC 1952 §2.3.1). */
export const isGzip = (head: Uint8Array): boolean => head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b

const headOf = (path: string): Buffer => {
  const fd = openSync(path, "r")
  try {
    const head = Buffer.alloc(2)
    const n = readSync(fd, head, 0, 2, 0)
    return head.subarray(0, n)
  } finally {
    closeSync(fd)
  }
}

/**
 * Why `path` cannot be read as an audit log — missing, a directory, not readable, not a regular file — or undefined
 * when it can: checked before a replay starts (a scenario's `logs`, `clustersim replay`'s arguments), not found by the
 * reader mid-run. A pipe (`<(zcat …)`, `/dev/stdin`) is refused: a replay reads its logs twice (the seed and the span,
 * then the requests), and a pipe's content is gone after the first.
 */
export const unreadableLog = (path: string): string | undefined => {
  try {
    const st = statSync(path)
    if (st.isDirectory()) return "is a directory, not an audit log file"
    if (!st.isFile())
      return `is ${st.isFIFO() ? "a pipe" : st.isSocket() ? "a socket" : "a device"}, not a regular file: a replay reads its logs twice (what to seed, then the requests); save it to a file first`
    closeSync(openSync(path, "r"))
    return undefined
  } catch (e) {
    switch ((e as NodeJS.ErrnoException).code) {
      case "ENOENT":
        return "no such file"
      case "ENOTDIR":
        return "no such file (a part of the path is a file, not a directory)"
      case "EACCES":
      case "EPERM":
        return "permission denied"
      default:
        return (e as Error).message
    }
  }
}

/** A line of a file with its 1-based number. */
export interface NumberedLine {
  readonly text: string
  readonly line: number
}

/** Bytes read at a time: a few hundred events, decoded to text in a fraction of a millisecond. */
const ChunkBytes = 256 * 1024

/**
 * The lines of one file, gunzipped when it is gzip. `take` hands out the next line already read, or `undefined`
 * when a chunk must be read first (`fill`) or the file has ended (`ended`). A gzip stream cut short, or a file that
 * cannot be read, rejects `fill` with the stream's error (the caller reports it with the last line number it saw).
 */
export class AuditLogLines {
  private readonly file: Readable
  private readonly input: Readable
  private readonly chunks: AsyncIterator<Buffer>
  private readonly decoder = new StringDecoder("utf8")
  /** The text read and not yet taken, from `pos`. */
  private text = ""
  private pos = 0
  /** The start of a line whose end is not read yet, in pieces (a line may span many chunks). */
  private partial: Array<string> = []
  /** Lines split off at a lone `\r`, not yet taken. */
  private split: Array<string> = []
  private eof = false
  private line = 0

  constructor(readonly path: string) {
    const gzip = isGzip(headOf(path))
    const file = createReadStream(path, { highWaterMark: ChunkBytes })
    this.file = file
    this.input = gzip ? file.pipe(createGunzip({ chunkSize: ChunkBytes })) : file
    if (gzip) file.on("error", (e) => this.input.destroy(e))
    this.chunks = (this.input as AsyncIterable<Buffer>)[Symbol.asyncIterator]()
  }

  /** The file has no line left. */
  get ended(): boolean {
    return this.eof && this.split.length === 0 && this.pos >= this.text.length && this.partial.length === 0
  }

  /** The number of the last line taken. */
  get lineNumber(): number {
    return this.line
  }

  /** The next line, if it is read already. */
  take(): NumberedLine | undefined {
    if (this.split.length > 0) return { text: this.split.shift()!, line: ++this.line }
    const nl = this.text.indexOf("\n", this.pos)
    let text: string
    if (nl >= 0) {
      text = this.text.slice(this.pos, nl)
      this.pos = nl + 1
      if (this.partial.length > 0) {
        this.partial.push(text)
        text = this.partial.join("")
        this.partial = []
      }
    } else {
      if (this.pos < this.text.length) this.partial.push(this.text.slice(this.pos))
      this.text = ""
      this.pos = 0
      if (!this.eof || this.partial.length === 0) return undefined
      // the last line, without a newline
      text = this.partial.join("")
      this.partial = []
    }
    if (text.charCodeAt(text.length - 1) === 13) text = text.slice(0, -1)
    if (text.includes("\r")) {
      const [first, ...rest] = text.split("\r")
      this.split = rest
      text = first!
    }
    return { text, line: ++this.line }
  }

  /** Reads the next chunk (resolves at once at the end of the file). */
  async fill(): Promise<void> {
    if (this.eof) return
    const r = await this.chunks.next()
    if (r.done) {
      this.eof = true
      const tail = this.decoder.end()
      if (tail !== "") this.append(tail)
      return
    }
    this.append(this.decoder.write(r.value))
  }

  private append(s: string): void {
    if (this.pos < this.text.length) this.text = this.text.slice(this.pos) + s
    else this.text = s
    this.pos = 0
  }

  close(): void {
    Promise.resolve(this.chunks.return?.()).catch(() => {})
    this.input.destroy()
    this.file.destroy()
  }
}

/** The lines of `path`, as `AuditLogLines` reads them; a read error is thrown from the iterator. */
export async function* auditLogLines(path: string): AsyncGenerator<NumberedLine> {
  const lines = new AuditLogLines(path)
  try {
    for (;;) {
      const l = lines.take()
      if (l !== undefined) yield l
      else if (lines.ended) return
      else await lines.fill()
    }
  } finally {
    lines.close()
  }
}
