/**
 * The audit log's rotation, as lumberjack rotates kube-apiserver's: a write that would pass the size renames the file
 * to NAME-<UTC time, 2006-01-02T15-04-05.000>.EXT first; only the newest maxBackups backups (and none older than
 * maxAge days) are kept; an existing file is appended to; one write longer than the limit is refused.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { backupName, RotatingFile } from "../../../simulator/apiserver/audit/RotatingFile.js"

const start = Date.UTC(2026, 10, 29, 11, 30, 0, 250)

const setup = (o: { maxBytes: number; maxBackups?: number; maxAgeDays?: number }) => {
  const dir = mkdtempSync(join(tmpdir(), "audit-rotate-"))
  let now = start
  const file = new RotatingFile({ path: join(dir, "audit.log"), maxBytes: o.maxBytes, maxBackups: o.maxBackups ?? 0, maxAgeDays: o.maxAgeDays ?? 0, now: () => now })
  return { dir, file, advance: (ms: number) => void (now += ms), files: () => readdirSync(dir).sort() }
}

describe("audit log rotation (lumberjack)", () => {
  it("backup names carry the rotation's UTC time with milliseconds, before the extension", () => {
    expect(backupName("/var/log/audit.log", start)).toBe("/var/log/audit-2026-11-29T11-30-00.250.log")
    expect(backupName("/var/log/audit", start)).toBe("/var/log/audit-2026-11-29T11-30-00.250")
  })

  it("a write that would pass the size rotates first; every line stays whole in one file", () => {
    const { dir, file, advance, files } = setup({ maxBytes: 100 })
    const line = (i: number) => `${String(i).padStart(2, "0")}${"x".repeat(37)}\n` // 40 bytes
    for (let i = 0; i < 5; i++) {
      file.write(line(i))
      advance(1_000)
    }
    file.close()
    // 2 lines a file (80 bytes; a third would be 120): rotated before lines 2 and 4, at their write times
    expect(files()).toEqual(["audit-2026-11-29T11-30-02.250.log", "audit-2026-11-29T11-30-04.250.log", "audit.log"])
    expect(readFileSync(join(dir, "audit-2026-11-29T11-30-02.250.log"), "utf8")).toBe(line(0) + line(1))
    expect(readFileSync(join(dir, "audit-2026-11-29T11-30-04.250.log"), "utf8")).toBe(line(2) + line(3))
    expect(readFileSync(join(dir, "audit.log"), "utf8")).toBe(line(4))
    expect(statSync(join(dir, "audit.log")).mode & 0o777).toBe(0o600)
  })

  it("maxBackups keeps the newest backups only", () => {
    const { file, advance, files } = setup({ maxBytes: 50, maxBackups: 2 })
    for (let i = 0; i < 6; i++) {
      file.write(`${"y".repeat(39)}\n`)
      advance(1_000)
    }
    file.close()
    expect(files()).toEqual(["audit-2026-11-29T11-30-04.250.log", "audit-2026-11-29T11-30-05.250.log", "audit.log"])
  })

  it("maxAge removes backups older than that many days; other files are left alone", () => {
    const { dir, file, advance, files } = setup({ maxBytes: 50, maxAgeDays: 1 })
    writeFileSync(join(dir, "audit-2026-11-27T00-00-00.000.log"), "old\n")
    writeFileSync(join(dir, "audit-notatime.log"), "keep\n")
    writeFileSync(join(dir, "other.txt"), "keep\n")
    file.write(`${"z".repeat(39)}\n`)
    advance(60_000)
    file.write(`${"z".repeat(39)}\n`)
    file.close()
    expect(files()).toEqual(["audit-2026-11-29T11-31-00.250.log", "audit-notatime.log", "audit.log", "other.txt"])
  })

  it("an existing file is appended to, or rotated first when the write would not fit", () => {
    const { dir, file, files } = setup({ maxBytes: 100 })
    writeFileSync(join(dir, "audit.log"), "a".repeat(50))
    file.write("b".repeat(10))
    file.close()
    expect(readFileSync(join(dir, "audit.log"), "utf8")).toBe("a".repeat(50) + "b".repeat(10))
    const again = new RotatingFile({ ...file.options })
    again.write("c".repeat(40))
    again.close()
    expect(files()).toEqual(["audit-2026-11-29T11-30-00.250.log", "audit.log"])
    expect(readFileSync(join(dir, "audit.log"), "utf8")).toBe("c".repeat(40))
  })

  it("one write longer than the limit is refused with lumberjack's message, the file unchanged", () => {
    const { dir, file } = setup({ maxBytes: 10 })
    file.write("12345\n")
    expect(() => file.write("x".repeat(11))).toThrow("write length 11 exceeds maximum file size 10")
    file.close()
    expect(readFileSync(join(dir, "audit.log"), "utf8")).toBe("12345\n")
  })
})
