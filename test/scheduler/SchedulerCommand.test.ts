import { Effect } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { schedulerCommand } from "../../simulator/scheduler/SchedulerCommand.js"
import { schedulerHelp } from "../../simulator/scheduler/options/index.js"

const io = () => {
  const out: string[] = []
  const err: string[] = []
  const files = new Map<string, string>()
  return {
    out,
    err,
    files,
    io: {
      stdout: (t: string) => void out.push(t),
      stderr: (t: string) => void err.push(t),
      readFile: async (p: string) => {
        const f = files.get(p)
        if (f === undefined) throw new Error("ENOENT")
        return f
      },
      writeFile: async (p: string, t: string) => void files.set(p, t)
    }
  }
}

describe("schedulerCommand", () => {
  it("--help prints schedulerHelp() and exits 0", async () => {
    const t = io()
    expect(await Effect.runPromise(schedulerCommand(["--help"], t.io))).toBe(0)
    expect(t.out.join("")).toBe(schedulerHelp())
  })
  it("--write-config-to writes the effective configuration", async () => {
    const t = io()
    expect(await Effect.runPromise(schedulerCommand(["--write-config-to=/x.yaml", "--leader-elect-lease-duration=20s"], t.io))).toBe(0)
    expect(t.files.get("/x.yaml")).toContain("leaseDuration: 20s")
    expect(t.out.join("")).toBe("Wrote configuration to: /x.yaml\n")
  })
  it("errors print Error: … and exit 1", async () => {
    const t = io()
    expect(await Effect.runPromise(schedulerCommand(["--no-such-flag"], t.io))).toBe(1)
    expect(t.err.join("")).toMatch(/^Error: unknown flag: --no-such-flag/)
    const u = io()
    expect(await Effect.runPromise(schedulerCommand(["--config=/missing.yaml"], u.io))).toBe(1)
    expect(u.err.join("")).toMatch(/^Error: /)
  })
})
