/**
 * The two test tiers (README "Tests"). `npm test` runs every test file outside `test/system/`: in-process, on
 * virtual time or a few real seconds, the whole tier in minutes on 2 cores. `npm run test:system` runs
 * `test/system/`: suites that start processes (the CLI, `serve`, kubectl, Python, the Node client, Chromium), run
 * on the real clock for seconds each, or simulate long hours. The folder is the rule (vitest.config.ts); these
 * checks keep it honest: a fast test file starts no process, so a new one that does fails here until it moves
 * under `test/system/`; and every source module is reached from some fast test file, so the fast tier still
 * covers all of the code.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const SOURCES = ["src", "simulator", "reports", "app"]
const SYSTEM = "test/system/"

/** Test helpers a fast test may use although they start a process, and why that is quick and always there. */
const FAST_PROCESSES: ReadonlyMap<string, string> = new Map([
  ["test/support/pki.ts", "one openssl call per certificate, at a suite's start"]
])

/** Modules that run only as a process of their own, and the system suite that runs them. */
const PROCESS_ENTRIES: ReadonlyMap<string, string> = new Map([
  ["app/cli/serveEntry.ts", "`serve` as the embedded server's process: test/system/cli/workers.test.ts, test/system/calibrate"],
  ["app/cli/workerEntry.ts", "a generator worker's process: test/system/cli/workers.test.ts"],
  ["app/cli/cliEntry.ts", "a segment's process under run --segments, a point's under sweep: test/system/cli/segments.test.ts, test/system/cli/sweep.test.ts"]
])

/** What starts a process from a test file: the module that spawns, a browser driver, the CLI as its own process. */
const startsProcess = (source: string, imports: ReadonlyArray<string>): string | undefined =>
  imports.find((i) => i === "node:child_process" || i === "child_process" || i === "playwright-core" || i.endsWith("app/cli/ServerProcess.ts")) ??
  (/cliProcess\.ts/.test(source) ? "the CLI as its own process (test/support/cliProcess)" : undefined)

const listFiles = (dir: string, match: RegExp): Array<string> =>
  fs.existsSync(path.join(ROOT, dir))
    ? fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
        .filter((e) => e.isFile() && match.test(e.name) && !path.join(e.parentPath, e.name).includes(`${path.sep}node_modules${path.sep}`))
        .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
        .sort()
    : []

/** Relative imports resolved to repository paths (`.js` to the `.ts` beside it), packages as written. */
const importsOf = (file: string, source: string): Array<string> =>
  ts.preProcessFile(source, true, true).importedFiles.map(({ fileName: spec }) =>
    spec.startsWith(".") ? path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, ".ts") : spec
  )

const sourceOf = (file: string): string => (fs.existsSync(path.join(ROOT, file)) ? fs.readFileSync(path.join(ROOT, file), "utf8") : "")

/** Every repository file reached from `roots` through imports, each with the first root that reached it. */
export const reachedFrom = (roots: ReadonlyArray<string>): Map<string, string> => {
  const reached = new Map<string, string>()
  for (const root of roots) {
    const stack = [root]
    while (stack.length > 0) {
      const file = stack.pop()!
      if (reached.has(file)) continue
      reached.set(file, root)
      for (const i of importsOf(file, sourceOf(file))) if (i.endsWith(".ts") && fs.existsSync(path.join(ROOT, i))) stack.push(i)
    }
  }
  return reached
}

const testFiles = listFiles("test", /\.test\.ts$/)
const fastFiles = testFiles.filter((f) => !f.startsWith(SYSTEM))

describe("test tiers", () => {
  it("finds both tiers", () => {
    expect(fastFiles.length).toBeGreaterThan(100)
    expect(testFiles.length - fastFiles.length).toBeGreaterThan(10)
  })

  it("a fast test file starts no process: such a test belongs under test/system/", () => {
    const offenders: Array<string> = []
    for (const [file, root] of reachedFrom(fastFiles)) {
      if (!file.startsWith("test/") || FAST_PROCESSES.has(file)) continue
      const source = sourceOf(file)
      const how = startsProcess(source, importsOf(file, source))
      if (how !== undefined) offenders.push(`${root}${file === root ? "" : ` (through ${file})`}: ${how}`)
    }
    expect(offenders).toEqual([])
  })

  it("every source module is reached from a fast test file, but for the entry points of processes", () => {
    const reached = reachedFrom(fastFiles)
    const sources = SOURCES.flatMap((dir) => listFiles(dir, /\.ts$/))
    expect(sources.length).toBeGreaterThan(100)
    expect(sources.filter((f) => !reached.has(f) && !PROCESS_ENTRIES.has(f))).toEqual([])
    expect([...PROCESS_ENTRIES.keys()].filter((f) => reached.has(f) || !sources.includes(f))).toEqual([])
  })

  it("the process check sees a spawning helper, the CLI started by path, and a browser", () => {
    expect(startsProcess("", ["node:child_process"])).toBe("node:child_process")
    // the file name split, so that this file does not start the CLI by the check's own measure
    expect(startsProcess(`spawn(vite, ["test/support/cliProcess${".ts"}", "run"])`, [])).toBe("the CLI as its own process (test/support/cliProcess)")
    expect(startsProcess("", ["playwright-core"])).toBe("playwright-core")
    expect(startsProcess("", ["effect", "app/cli/run.ts"])).toBeUndefined()
  })
})
