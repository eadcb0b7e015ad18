/**
 * The command line's help, in process: every command's help text as a snapshot (test/cli/__snapshots__/help/),
 * colour only on a terminal and never with NO_COLOR, `help <command>`, "did you mean" for a misspelt flag and
 * subcommand (exit 2), no filler sentences, no `--wizard`.
 */
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { main } from "../../app/cli/main.js"
import { wantsColor } from "../../app/cli/Color.js"
import { defaultConfig } from "../../simulator/apiserver/ServerState.js"

const escape = /\x1b\[/

/** Runs `main` with stdout and stderr captured as written (escapes kept); `tty` makes both look like terminals. */
const capture = async (args: ReadonlyArray<string>, o: { tty?: boolean; noColor?: string } = {}) => {
  const out: Array<string> = []
  const err: Array<string> = []
  const saved = { out: process.stdout.isTTY, err: process.stderr.isTTY, noColor: process.env.NO_COLOR }
  process.stdout.isTTY = o.tty === true
  process.stderr.isTTY = o.tty === true
  if (o.noColor === undefined) delete process.env.NO_COLOR
  else process.env.NO_COLOR = o.noColor
  vi.spyOn(process.stdout, "write").mockImplementation((s) => (out.push(String(s)), true))
  vi.spyOn(process.stderr, "write").mockImplementation((s) => (err.push(String(s)), true))
  vi.spyOn(console, "log").mockImplementation((...xs) => void out.push(xs.join(" ") + "\n"))
  vi.spyOn(console, "error").mockImplementation((...xs) => void err.push(xs.join(" ") + "\n"))
  try {
    const code = await main(args)
    return { code, out: out.join(""), err: err.join("") }
  } finally {
    vi.restoreAllMocks()
    process.stdout.isTTY = saved.out
    process.stderr.isTTY = saved.err
    if (saved.noColor === undefined) delete process.env.NO_COLOR
    else process.env.NO_COLOR = saved.noColor
  }
}

afterEach(() => void vi.restoreAllMocks())

const commands = ["run", "start", "sweep", "serve", "validate", "report", "merge", "job", "collect", "compare", "calibrate", "schema"] as const

describe("help text", () => {
  it("clustersim (no arguments), --help and help: the command list", async () => {
    const r = await capture([])
    expect(r.code).toBe(0)
    await expect(r.out).toMatchFileSnapshot("__snapshots__/help/clustersim.txt")
    for (const args of [["--help"], ["-h"], ["help"], ["help", "help"], ["help", "--help"]]) expect(await capture(args), args.join(" ")).toEqual({ code: 0, out: r.out, err: "" })
  })

  it.each(commands)("%s --help", async (command) => {
    const r = await capture([command, "--help"])
    expect([r.code, r.err]).toEqual([0, ""])
    await expect(r.out).toMatchFileSnapshot(`__snapshots__/help/${command}.txt`)
    expect(r.out.split("\n").filter((l) => l.startsWith("  clustersim ")).length, "usage line and examples").toBeGreaterThanOrEqual(2)
  })

  it("serve --help states the server's own defaults (--watch-buffer-size is the server's watchBufferSize)", async () => {
    const out = (await capture(["serve", "--help"])).out.replace(/\s+/g, " ")
    expect(out).toContain(`(default ${defaultConfig.watchBufferSize.toLocaleString("en-US")}, as the scenario's server.watchBufferSize)`)
  })

  it("each command has one usage line, clustersim <command> [flags] <args>, and examples", async () => {
    const usage = async (command: string) => {
      const out = (await capture([command, "--help"])).out
      return out.slice(out.indexOf("Usage:\n") + 7).split("\n")[0]
    }
    expect(await usage("run")).toBe("  clustersim run [flags] <scenario.yaml>")
    expect(await usage("validate")).toBe("  clustersim validate [flags] <file>...")
    expect(await usage("compare")).toBe("  clustersim compare [flags] <run.json|dir|scenario.yaml>...")
    expect(await usage("schema")).toBe("  clustersim schema")
  })

  it("no filler sentences, no $-usage, no --wizard or other built-ins in any command's help", async () => {
    for (const command of commands) {
      const out = (await capture([command, "--help"])).out
      for (const filler of ["A user-defined piece of text", "This setting is optional", "may be repeated", "$ ", "--wizard", "--log-level", "--completions"])
        expect(out, `${command}: ${filler}`).not.toContain(filler)
    }
  })

  it("every flag with a default says it, with its unit", async () => {
    // one line per flag: its name line joined with its wrapped description
    const flat = async (command: string) => (await capture([command, "--help"])).out.replace(/\n {6}/g, " ")
    const serve = await flat("serve")
    expect(serve).toContain("  --port N TCP port to listen on; 0 picks a free one. (default 6443)\n")
    expect(serve).toMatch(/ {2}--history-window DURATION .*\(default 5m\)\n/)
    expect(serve).toMatch(/ {2}--request-timeout DURATION .*\(default 60s\)\n/)
    expect(serve).toMatch(/ {2}--max-connections N .*\(default 4096\)\n/)
    expect(serve).toMatch(/ {2}--authorization-mode MODE .*\(default AlwaysAllow\)\n/)
    const compare = await flat("compare")
    expect(compare).toMatch(/ {2}--rounds N .*\(default 3\)\n/)
    expect(compare).toMatch(/ {2}--level P .*\(default 0\.99\)\.\n/)
    expect(await flat("calibrate")).toMatch(/ {2}--step DURATION .*\(default 2s\)\n/)
    expect(await flat("run")).toMatch(/ {2}--out DIR .*\(default runs\/<timestamp>-<name>\/\)\.\n/)
  })

  it("help <command> prints that command's help; help scheduler the scheduler's", async () => {
    for (const command of commands) expect(await capture(["help", command]), command).toEqual(await capture([command, "--help"]))
    expect((await capture(["run", "-h"])).out).toBe((await capture(["run", "--help"])).out)
    const scheduler = await capture(["help", "scheduler"])
    expect(scheduler.code).toBe(0)
    expect(scheduler.out).toBe((await capture(["scheduler", "--help"])).out)
    expect(scheduler.out).toContain("Usage:\n  platform-scheduler [flags]\n")
  })

  it("help with an unknown command: exit 2 with the likeliest one", async () => {
    expect(await capture(["help", "rn"])).toEqual({ code: 2, out: "", err: 'clustersim: unknown command "rn"; did you mean "run"?\nRun "clustersim help" for usage.\n' })
  })
})

describe("did you mean", () => {
  it("a misspelt flag: exit 2, naming the flag it likely meant", async () => {
    expect(await capture(["run", "--tagret", "http://127.0.0.1:1", "x.yaml"])).toEqual({
      code: 2,
      out: "",
      err: 'clustersim run: unknown flag "--tagret"; did you mean "--target"?\nRun "clustersim run --help" for usage.\n'
    })
    expect((await capture(["serve", "--prot", "1"])).err).toContain('clustersim serve: unknown flag "--prot"; did you mean "--port"?\n')
    expect((await capture(["run", "--hlep"])).err).toContain('clustersim run: unknown flag "--hlep"; did you mean "--help"?\n')
    // too far from every flag: no guess
    expect((await capture(["run", "--bogus", "x.yaml"])).err).toBe('clustersim run: unknown flag "--bogus"\nRun "clustersim run --help" for usage.\n')
  })

  it("a misspelt subcommand: exit 2, naming the command it likely meant (also by prefix)", async () => {
    expect(await capture(["rn", "x.yaml"])).toEqual({ code: 2, out: "", err: 'clustersim: unknown command "rn"; did you mean "run"?\nRun "clustersim help" for usage.\n' })
    expect((await capture(["valid", "x.yaml"])).err).toContain('clustersim: unknown command "valid"; did you mean "validate"?\n')
    expect((await capture(["srve"])).err).toContain('did you mean "serve"?')
    expect(await capture(["frobnicate"])).toEqual({ code: 2, out: "", err: 'clustersim: unknown command "frobnicate"\nRun "clustersim help" for usage.\n' })
  })

  it("a parse error of @effect/cli (a missing argument, a bad value): exit 2, and where to read the usage", async () => {
    expect(await capture(["run"])).toEqual({ code: 2, out: "", err: 'Missing argument <scenario.yaml>\n\nRun "clustersim run --help" for usage.\n' })
    const port = await capture(["serve", "--port", "abc"])
    expect(port.code).toBe(2)
    expect(port.err).toContain('--port: not an integer: "abc"')
    expect(port.err).toMatch(/Run "clustersim serve --help" for usage\.\n$/)
    // a number flag names itself as an integer flag does (was @effect/cli's "'abc' is not a float")
    const speed = await capture(["replay", "--speed", "abc", "x.log"])
    expect(speed.code).toBe(2)
    expect(speed.err).toContain('--speed: not a number: "abc"')
  })

  it("--wizard is refused (exit 2), at the top and on a command", async () => {
    expect(await capture(["--wizard"])).toEqual({ code: 2, out: "", err: 'clustersim: unknown flag "--wizard"\nRun "clustersim help" for usage.\n' })
    expect((await capture(["run", "--wizard"])).code).toBe(2)
  })
})

describe("colour", () => {
  it("wantsColor: a TTY, with NO_COLOR unset or empty (no-color.org)", () => {
    expect(wantsColor({ isTTY: true }, {})).toBe(true)
    expect(wantsColor({ isTTY: true }, { NO_COLOR: "" })).toBe(true)
    expect(wantsColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false)
    expect(wantsColor({ isTTY: true }, { NO_COLOR: "0" })).toBe(false)
    expect(wantsColor({ isTTY: false }, {})).toBe(false)
    expect(wantsColor({}, {})).toBe(false)
  })

  it("help on a terminal is in colour; the same text without escapes when not a terminal", async () => {
    const tty = await capture(["run", "--help"], { tty: true })
    expect(tty.out).toMatch(escape)
    const piped = await capture(["run", "--help"])
    expect(piped.out).not.toMatch(escape)
    expect(tty.out.replace(/\x1b\[[0-9;]*m/g, "")).toBe(piped.out)
  })

  it("NO_COLOR=1 on a terminal: no escapes; NO_COLOR empty counts as unset", async () => {
    for (const args of [[], ["run", "--help"], ["serve", "--help"], ["help", "compare"]])
      expect((await capture(args, { tty: true, noColor: "1" })).out, args.join(" ")).not.toMatch(escape)
    expect((await capture(["run", "--help"], { tty: true, noColor: "" })).out).toMatch(escape)
  })
})
