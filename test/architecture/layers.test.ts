/**
 * Layers import one way (docs/architecture.md "Layers"):
 *
 *   src  ←  simulator  ←  reports  ←  app (cli, scenario)  ←  bench
 *
 * `src` (the library) imports only `src`; `simulator` imports `src`; `reports` renders artifacts with `src` and
 * `simulator` types and never imports a composition root; `app` may import anything but `bench`; `bench` anything.
 * Inside `src`: api ← client ← informer, loadgen (← calibrate, compare); `simulator/kernel` imports only `effect`;
 * a simulator component never imports `simulator/cluster`, which assembles them; no two folders import each other;
 * and no file-level import circle: a type lives in the file both sides already import, not in the first that
 * needed it.
 *
 * Imports are read with TypeScript's own pre-processor (`import`, `import type`, `export … from`, `import()`), so
 * comments and strings never count; type-only imports count too. KNOWN_VIOLATIONS lists what breaks a rule today,
 * each with who removes it; anything else that breaks a rule fails, and so does an entry that no longer breaks one.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const SCANNED = ["src", "simulator", "reports", "app", "bench"]

/**
 * What breaks a rule today, and who removes it: an import `from -> to` (repository paths), or a file circle
 * `cycle a -> b -> …` (its files sorted, as `violationsOf` names it). The list must shrink.
 */
const KNOWN_VIOLATIONS: ReadonlyMap<string, string> = new Map([
])

/** The folder a file belongs to for layering: `src/<x>`, `simulator/<x>`, `app/<x>`, or the top-level folder. */
export const layerOf = (file: string): string => {
  const parts = file.split("/")
  return parts[0] === "src" || parts[0] === "simulator" || parts[0] === "app" ? parts.slice(0, 2).join("/") : parts[0]!
}

/** The top-level folders, each with those it may import besides itself. */
const topMayImport: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["src", new Set<string>()],
  ["simulator", new Set(["src"])],
  ["reports", new Set(["src", "simulator"])],
  ["app", new Set(["src", "simulator", "reports"])],
  ["bench", new Set(["src", "simulator", "reports", "app"])]
])

/** The simulator's composition root: it assembles the components, which never import it. */
const simulatorRoot = "simulator/cluster"

/** What each restricted folder may import besides itself. */
const mayImport: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["src/api", new Set<string>()],
  ["src/client", new Set(["src/api"])],
  ["src/informer", new Set(["src/api", "src/client"])],
  ["src/loadgen", new Set(["src/api", "src/client", "src/informer"])],
  ["src/calibrate", new Set(["src/api", "src/client", "src/loadgen"])],
  ["src/compare", new Set(["src/loadgen"])],
  ["src/replay", new Set(["src/api", "src/client", "src/loadgen"])],
  ["simulator/kernel", new Set<string>()]
])

/** Packages a folder may import, when it is restricted. */
const packagesAllowed: ReadonlyMap<string, (pkg: string) => boolean> = new Map([
  ["simulator/kernel", (pkg: string) => pkg === "effect" || pkg.startsWith("effect/")]
])

export interface Import {
  readonly from: string
  /** Repository path (`.js` specifiers mapped to their `.ts` source), or the package specifier. */
  readonly to: string
  readonly line: number
  readonly external: boolean
}

/** The imports of one source file. */
export const importsOf = (file: string, source: string): Array<Import> => {
  const lineOf = (pos: number) => source.slice(0, pos).split("\n").length
  return ts.preProcessFile(source, true, true).importedFiles.map((ref) => {
    const spec = ref.fileName
    if (!spec.startsWith(".")) return { from: file, to: spec, line: lineOf(ref.pos), external: true }
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, ".ts")
    return { from: file, to: target, line: lineOf(ref.pos), external: false }
  })
}

export interface Violation {
  /** `from -> to` for an import, `cycle a -> b -> …` (sorted) for a file circle. */
  readonly edge: string
  readonly rule: string
}

const top = (file: string): string => file.split("/")[0]!

/** The rule one import between two folders breaks, if any. */
const crossingRule = (imp: Import): string | undefined => {
  const from = layerOf(imp.from)
  const to = layerOf(imp.to)
  const allowedTop = topMayImport.get(top(imp.from))
  if (allowedTop && top(imp.to) !== top(imp.from) && !allowedTop.has(top(imp.to)))
    return `${top(imp.from)} may import only ${[...allowedTop].join(", ") || "itself"}`
  const allowed = mayImport.get(from)
  if (allowed && !allowed.has(to)) return `${from} may import only ${[...allowed].join(", ") || "itself"}`
  if (from.startsWith("simulator/") && from !== simulatorRoot && to === simulatorRoot)
    return `a simulator component imports no composition root (${to})`
  return undefined
}

/** Sets of files that import each other in a circle (strongly connected, more than one file), each sorted. */
export const fileCycles = (imports: ReadonlyArray<Import>): Array<Array<string>> => {
  const next = new Map<string, Set<string>>()
  for (const imp of imports) {
    if (imp.external) continue
    if (!next.has(imp.from)) next.set(imp.from, new Set())
    next.get(imp.from)!.add(imp.to)
  }
  // Tarjan's strongly connected components
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const out: Array<Array<string>> = []
  const visit = (v: string): void => {
    index.set(v, index.size)
    low.set(v, index.get(v)!)
    stack.push(v)
    onStack.add(v)
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const component: Array<string> = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1 || next.get(v)?.has(v)) out.push(component.sort())
    }
  }
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v)
  return out.sort((a, b) => (a[0]! < b[0]! ? -1 : 1))
}

/** Every import that breaks a rule, given all files' imports (the cycle rules need the whole graph). */
export const violationsOf = (imports: ReadonlyArray<Import>, known: ReadonlyMap<string, string> = new Map()): Array<Violation> => {
  const out: Array<Violation> = []
  const crossing: Array<Import> = []
  for (const imp of imports) {
    const edge = `${imp.from} -> ${imp.to}`
    if (known.has(edge)) continue
    const from = layerOf(imp.from)
    if (imp.external) {
      const allowed = packagesAllowed.get(from)
      if (allowed && !allowed(imp.to)) out.push({ edge, rule: `${from} imports no package but effect` })
      continue
    }
    if (from === layerOf(imp.to)) continue
    crossing.push(imp)
    const rule = crossingRule(imp)
    if (rule !== undefined) out.push({ edge, rule })
  }
  // Folders that reach each other (a strongly connected set): every import between two of them is reported.
  const folders = new Map<string, Set<string>>()
  for (const imp of crossing) {
    const from = layerOf(imp.from)
    if (!folders.has(from)) folders.set(from, new Set())
    folders.get(from)!.add(layerOf(imp.to))
  }
  const reaches = (a: string, b: string): boolean => {
    const seen = new Set([a])
    const todo = [a]
    while (todo.length > 0) {
      for (const next of folders.get(todo.pop()!) ?? []) {
        if (next === b) return true
        if (!seen.has(next)) {
          seen.add(next)
          todo.push(next)
        }
      }
    }
    return false
  }
  for (const imp of crossing) {
    const from = layerOf(imp.from)
    const to = layerOf(imp.to)
    if (reaches(to, from)) out.push({ edge: `${imp.from} -> ${imp.to}`, rule: `${from} and ${to} import each other` })
  }
  // File circles: every import counts (type-only ones too), the known edges as well, so that a circle is named whole.
  for (const cycle of fileCycles(imports)) {
    const edge = `cycle ${cycle.join(" -> ")}`
    if (!known.has(edge)) out.push({ edge, rule: "files import each other in a circle" })
  }
  return out
}

const listTs = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name)
    if (e.isDirectory()) return e.name === "node_modules" ? [] : listTs(full)
    return e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [full] : []
  })

let scanned: Array<Import> | undefined
const repositoryImports = (): Array<Import> =>
  (scanned ??= SCANNED.flatMap((dir) => listTs(path.join(ROOT, dir))).flatMap((f) =>
    importsOf(path.relative(ROOT, f).split(path.sep).join("/"), fs.readFileSync(f, "utf8"))
  ))

describe("one-way layers", () => {
  it("src/, simulator/, reports/, app/ and bench/ import one way, with no file circle (known violations aside)", () => {
    const imports = repositoryImports()
    expect(imports.length).toBeGreaterThan(100)
    expect(imports.some((i) => i.from.startsWith("app/"))).toBe(true)
    expect(violationsOf(imports, KNOWN_VIOLATIONS).map((v) => `${v.edge}: ${v.rule}`)).toEqual([])
  })

  it("every known violation still breaks a rule (remove the entry with the import or the circle)", () => {
    const current = new Set(violationsOf(repositoryImports()).map((v) => v.edge))
    expect([...KNOWN_VIOLATIONS.keys()].filter((edge) => !current.has(edge))).toEqual([])
  })

  it("the scanner reads every form of import, with its line, and skips comments and strings", () => {
    const source = [
      "// import { x } from \"../../simulator/a.js\"",
      "import { A } from \"../api/Object.js\"",
      "import type { B } from \"./Local.js\"",
      "export { C } from \"../../simulator/apiserver/ApiServer.js\"",
      "const s = \"import '../cli/main.js'\"",
      "const m = await import(\"../loadgen/Arrival.js\")",
      "import * as E from \"effect\""
    ].join("\n")
    expect(importsOf("src/client/Foo.ts", source).map((i) => [i.line, i.to, i.external])).toEqual([
      [2, "src/api/Object.ts", false],
      [3, "src/client/Local.ts", false],
      [4, "simulator/apiserver/ApiServer.ts", false],
      [6, "src/loadgen/Arrival.ts", false],
      [7, "effect", true]
    ])
  })

  it("fails on a back-edge between top-level folders", () => {
    const imports = [
      ...importsOf("src/loadgen/Foo.ts", "import type { S } from \"../../simulator/apiserver/ApiServer.js\""),
      ...importsOf("src/compare/Foo.ts", "import { r } from \"../../reports/summary.js\""),
      ...importsOf("src/api/Foo.ts", "export * from \"../../app/scenario/Run.js\""),
      ...importsOf("simulator/apiserver/Foo.ts", "import { r } from \"../../reports/html.js\""),
      ...importsOf("simulator/cluster/Foo.ts", "import type { S } from \"../../app/scenario/Scenario.js\""),
      ...importsOf("reports/Foo.ts", "import { run } from \"../app/cli/run.js\""),
      ...importsOf("reports/Bar.ts", "import { b } from \"../bench/run.js\""),
      ...importsOf("app/cli/Foo.ts", "import { b } from \"../../bench/run.js\"")
    ]
    expect(violationsOf(imports).map((v) => `${v.edge}: ${v.rule}`)).toEqual([
      "src/loadgen/Foo.ts -> simulator/apiserver/ApiServer.ts: src may import only itself",
      "src/compare/Foo.ts -> reports/summary.ts: src may import only itself",
      "src/api/Foo.ts -> app/scenario/Run.ts: src may import only itself",
      "simulator/apiserver/Foo.ts -> reports/html.ts: simulator may import only src",
      "simulator/cluster/Foo.ts -> app/scenario/Scenario.ts: simulator may import only src",
      "reports/Foo.ts -> app/cli/run.ts: reports may import only src, simulator",
      "reports/Bar.ts -> bench/run.ts: reports may import only src, simulator",
      "app/cli/Foo.ts -> bench/run.ts: app may import only src, simulator, reports"
    ])
  })

  it("fails on a wrong-way import in each layered folder", () => {
    const imports = [
      ...importsOf("src/api/Foo.ts", "import { C } from \"../client/ApiClient.js\""),
      ...importsOf("src/informer/Foo.ts", "import { L } from \"../loadgen/Arrival.js\""),
      ...importsOf("src/compare/Foo.ts", "import { C } from \"../client/ApiClient.js\""),
      ...importsOf("simulator/kernel/Foo.ts", "import * as fs from \"node:fs\"\nimport { C } from \"../../src/client/ApiClient.js\""),
      ...importsOf("simulator/scheduler/Foo.ts", "import { run } from \"../cluster/ClusterRun.js\"")
    ]
    expect(violationsOf(imports).map((v) => v.edge)).toEqual([
      "src/api/Foo.ts -> src/client/ApiClient.ts",
      "src/informer/Foo.ts -> src/loadgen/Arrival.ts",
      "src/compare/Foo.ts -> src/client/ApiClient.ts",
      "simulator/kernel/Foo.ts -> node:fs",
      "simulator/kernel/Foo.ts -> src/client/ApiClient.ts",
      "simulator/scheduler/Foo.ts -> simulator/cluster/ClusterRun.ts"
    ])
  })

  it("accepts the allowed directions", () => {
    const imports = [
      ...importsOf("src/client/Foo.ts", "import { A } from \"../api/Object.js\""),
      ...importsOf("src/loadgen/Foo.ts", "import { C } from \"../client/ApiClient.js\"\nimport { I } from \"../informer/Informer.js\""),
      ...importsOf("src/compare/Foo.ts", "import type { R } from \"../loadgen/Artifact.js\""),
      ...importsOf("simulator/kernel/Foo.ts", "import { Effect } from \"effect\"\nimport * as Clock from \"effect/Clock\"\nimport { D } from \"./DueQueue.js\""),
      ...importsOf("simulator/apiserver/Foo.ts", "import { C } from \"../../src/client/ApiClient.js\""),
      ...importsOf("simulator/cluster/Foo.ts", "import { S } from \"../scheduler/Scheduler.js\""),
      ...importsOf("reports/Foo.ts", "import type { R } from \"../simulator/cluster/ClusterResult.js\"\nimport type { A } from \"../src/loadgen/Artifact.js\""),
      ...importsOf("app/cli/Foo.ts", "import { S } from \"../../simulator/apiserver/ApiServer.js\"\nimport { h } from \"../../reports/html.js\"\nimport { R } from \"../scenario/Run.js\""),
      ...importsOf("bench/Foo.ts", "import { main } from \"../app/cli/main.js\"\nimport { h } from \"../reports/html.js\"")
    ]
    expect(violationsOf(imports)).toEqual([])
  })

  it("fails on folders that import each other, through any number of folders, unless the import is known", () => {
    const imports = [
      ...importsOf("simulator/scheduler/A.ts", "import { x } from \"../nodeagent/B.js\""),
      ...importsOf("simulator/nodeagent/B.ts", "import { y } from \"../events/C.js\""),
      ...importsOf("simulator/events/C.ts", "import { z } from \"../scheduler/D.js\"")
    ]
    expect(violationsOf(imports).map((v) => v.rule)).toEqual([
      "simulator/scheduler and simulator/nodeagent import each other",
      "simulator/nodeagent and simulator/events import each other",
      "simulator/events and simulator/scheduler import each other"
    ])
    expect(violationsOf(imports, new Map([["simulator/events/C.ts -> simulator/scheduler/D.ts", "someone"]]))).toEqual([])
  })

  it("fails on a file circle inside a folder, named whole, type-only imports included, unless the circle is known", () => {
    const imports = [
      ...importsOf("src/loadgen/A.ts", "import { b } from \"./B.js\""),
      ...importsOf("src/loadgen/B.ts", "import type { C } from \"./C.js\""),
      ...importsOf("src/loadgen/C.ts", "export { a } from \"./A.js\"\nimport { d } from \"./D.js\""),
      ...importsOf("src/loadgen/D.ts", "import { Effect } from \"effect\""),
      ...importsOf("app/cli/Self.ts", "import { me } from \"./Self.js\"")
    ]
    expect(violationsOf(imports)).toEqual([
      { edge: "cycle app/cli/Self.ts", rule: "files import each other in a circle" },
      { edge: "cycle src/loadgen/A.ts -> src/loadgen/B.ts -> src/loadgen/C.ts", rule: "files import each other in a circle" }
    ])
    const known = new Map([
      ["cycle app/cli/Self.ts", "someone"],
      ["cycle src/loadgen/A.ts -> src/loadgen/B.ts -> src/loadgen/C.ts", "someone"]
    ])
    expect(violationsOf(imports, known)).toEqual([])
    // a chain without its closing import is no circle
    expect(fileCycles(imports.filter((i) => i.from !== "src/loadgen/C.ts" && i.from !== "app/cli/Self.ts"))).toEqual([])
  })
})
