/**
 * An audit log file's lines, streamed: gzip (upstream's rotated logs compressed by logrotate) is recognised by its
 * magic bytes, not its name; a file of any size is read a chunk at a time, never whole (docs/replay.md "Memory").
 */
import { createReadStream, openSync, readSync, closeSync } from "node:fs"
import { createInterface } from "node:readline"
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

/** A line of a file with its 1-based number. */
export interface NumberedLine {
  readonly text: string
  readonly line: number
}

/**
 * The lines of `path`, gunzipped when it is gzip. A gzip stream cut short ends the lines with the error thrown from
 * the iterator (the caller reports it with the last line number it saw).
 */
export async function* auditLogLines(path: string): AsyncGenerator<NumberedLine> {
  const gzip = isGzip(headOf(path))
  const file = createReadStream(path, { highWaterMark: 256 * 1024 })
  const input: Readable = gzip ? file.pipe(createGunzip()) : file
  if (gzip) file.on("error", (e) => input.destroy(e))
  const lines = createInterface({ input, crlfDelay: Infinity })
  let line = 0
  try {
    for await (const text of lines) yield { text, line: ++line }
  } finally {
    lines.close()
    input.destroy()
    file.destroy()
  }
}
