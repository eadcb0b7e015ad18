/**
 * An append-only log file that rotates by size, as kube-apiserver's audit log does with lumberjack
 * (`gopkg.in/natefinch/lumberjack.v2`, set up in `apiserver/pkg/server/options/audit.go`): a write that would take
 * the file past `maxBytes` first renames it to `NAME-2006-01-02T15-04-05.000.EXT` (UTC, the time of the rotation)
 * and starts a new one; then backups beyond the newest `maxBackups` (0: keep all) and those older than `maxAgeDays`
 * (0: keep all) are removed. A write longer than `maxBytes` on its own is refused, as lumberjack refuses it. Writes
 * are synchronous, as the audit log backend's blocking mode (the default) writes each event before the request
 * goes on. New files are 0600.
 */
import { closeSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs"
import { basename, dirname, extname, join } from "node:path"

export interface RotatingFileOptions {
  readonly path: string
  /** Rotate before a write would pass this size; lumberjack's `MaxSize` (megabytes, 0 is 100) in bytes. */
  readonly maxBytes: number
  /** Backups kept (0: all). */
  readonly maxBackups: number
  /** Days a backup is kept (0: no limit). */
  readonly maxAgeDays: number
  /** The time of a rotation (ms since the epoch): the backup's name. */
  readonly now: () => number
}

/** lumberjack's `backupTimeFormat`. */
const two = (n: number) => String(n).padStart(2, "0")
export const backupTimestamp = (ms: number): string => {
  const d = new Date(ms)
  return `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}T${two(d.getUTCHours())}-${two(d.getUTCMinutes())}-${two(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, "0")}`
}

/** `backupName`: the path with `-<timestamp>` before its extension. */
export const backupName = (path: string, ms: number): string => {
  const ext = extname(path)
  return `${path.slice(0, path.length - ext.length)}-${backupTimestamp(ms)}${ext}`
}

const backupPattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/

/** `timeFromName`: the time a backup's name holds, or undefined for any other file. */
const timeFromName = (file: string, prefix: string, ext: string): number | undefined => {
  if (!file.startsWith(prefix) || !file.endsWith(ext) || file.length < prefix.length + ext.length) return undefined
  const m = backupPattern.exec(file.slice(prefix.length, file.length - ext.length))
  if (m === null) return undefined
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +m[7]!)
}

export class WriteTooLong extends Error {}

export class RotatingFile {
  private fd: number | undefined = undefined
  private size = 0

  constructor(readonly options: RotatingFileOptions) {}

  /** Creates the file (and its directory) if missing, as kube-apiserver's `ensureLogFile` does at start; throws when it cannot. */
  ensure(): void {
    mkdirSync(dirname(this.options.path), { recursive: true, mode: 0o700 })
    closeSync(openSync(this.options.path, "a", 0o600))
  }

  write(text: string): void {
    const bytes = Buffer.from(text)
    if (bytes.length > this.options.maxBytes) throw new WriteTooLong(`write length ${bytes.length} exceeds maximum file size ${this.options.maxBytes}`)
    if (this.fd === undefined) this.openExistingOrNew(bytes.length)
    else if (this.size + bytes.length > this.options.maxBytes) this.rotate()
    writeSync(this.fd!, bytes)
    this.size += bytes.length
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  private openExistingOrNew(writeLength: number): void {
    let existing: number | undefined
    try {
      existing = statSync(this.options.path).size
    } catch {
      existing = undefined
    }
    if (existing === undefined) return this.openNew()
    if (existing + writeLength >= this.options.maxBytes) return this.rotate()
    this.fd = openSync(this.options.path, "a", 0o600)
    this.size = existing
  }

  private openNew(): void {
    const { path } = this.options
    try {
      statSync(path)
      renameSync(path, backupName(path, this.options.now()))
    } catch {
      // no file yet: nothing to keep
    }
    this.fd = openSync(path, "w", 0o600)
    this.size = 0
  }

  private rotate(): void {
    this.close()
    this.openNew()
    this.removeOld()
  }

  /** `millRunOnce` without compression: the newest `maxBackups`, none older than `maxAgeDays`. */
  private removeOld(): void {
    const { path, maxBackups, maxAgeDays } = this.options
    if (maxBackups === 0 && maxAgeDays === 0) return
    const dir = dirname(path)
    const ext = extname(path)
    const prefix = `${basename(path, ext)}-`
    const backups: Array<{ file: string; time: number }> = []
    for (const file of readdirSync(dir)) {
      const time = timeFromName(file, prefix, ext)
      if (time !== undefined) backups.push({ file, time })
    }
    backups.sort((a, b) => b.time - a.time)
    const remove = new Set<string>()
    if (maxBackups > 0) for (const b of backups.slice(maxBackups)) remove.add(b.file)
    if (maxAgeDays > 0) {
      const cutoff = this.options.now() - maxAgeDays * 86_400_000
      for (const b of backups) if (b.time < cutoff) remove.add(b.file)
    }
    for (const file of remove) {
      try {
        unlinkSync(join(dir, file))
      } catch {
        // gone already
      }
    }
  }
}
