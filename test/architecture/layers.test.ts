/**
 * Layers import one way (docs/architecture.md "Layers"):
 *
 *   src/api  ←  src/client  ←  src/informer, src/loadgen (← src/calibrate)  ←  composition roots (src/scenario, src/cli, reports,
 *   simulator/cluster, bench); simulator/kernel imports only `effect`; the simulator's components use `src/`,
 *   never the reverse, and never a composition root; no two folders import each other.
 *
 * Imports are read with TypeScript's own pre-processor (`import`, `import type`, `export … from`, `import()`), so
 * comments and strings never count. KNOWN_VIOLATIONS lists the imports that break a rule today, each with the
 * branch that removes it; anything else that breaks a rule fails, and so does an entry that no longer exists.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const SCANNED = ["src", "simulator", "reports", "bench"]

/** Imports that break a rule today: `from -> to` (repository paths), and who removes them. */
const KNOWN_VIOLATIONS: ReadonlyMap<string, string> = new Map([
])

/** The folder a file belongs to for layering: `src/<x>`, `simulator/<x>`, or the top-level folder. */
export const layerOf = (file: string): string => {
  const parts = file.split("/")
  return parts[0] === "src" || parts[0] === "simulator" ? parts.slice(0, 2).join("/") : parts[0]!
}

const compositionRoots = new Set(["src/scenario", "src/cli", "reports", "bench", "simulator/cluster"])

/** What each layered folder may import besides itself (other folders are only held to the general rules). */
const mayImport: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["src/api", new Set<string>()],
  ["src/client", new Set(["src/api"])],
  ["src/informer", new Set(["src/api", "src/client"])],
  ["src/loadgen", new Set(["src/api", "src/client", "src/informer"])],
  ["src/calibrate", new Set(["src/api", "src/client", "src/loadgen"])],
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
  readonly edge: string
  readonly rule: string
}

/** Every import that breaks a rule, given all files' imports (the cycle rule needs the whole graph). */
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
    const to = layerOf(imp.to)
    if (from === to) continue
    crossing.push(imp)
    const allowed = mayImport.get(from)
    if (allowed && !allowed.has(to)) out.push({ edge, rule: `${from} may import only ${[...allowed].join(", ") || "itself"}` })
    else if (from.startsWith("simulator/") && !compositionRoots.has(from) && compositionRoots.has(to))
      out.push({ edge, rule: `a simulator component imports no composition root (${to})` })
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
  it("src/, simulator/, reports/ and bench/ import one way (known violations aside)", () => {
    const imports = repositoryImports()
    expect(imports.length).toBeGreaterThan(100)
    expect(violationsOf(imports, KNOWN_VIOLATIONS).map((v) => `${v.edge}: ${v.rule}`)).toEqual([])
  })

  it("every known violation still exists (remove the entry with the import)", () => {
    const edges = new Set(repositoryImports().map((i) => `${i.from} -> ${i.to}`))
    expect([...KNOWN_VIOLATIONS.keys()].filter((edge) => !edges.has(edge))).toEqual([])
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

  it("fails on a wrong-way import in each layered folder", () => {
    const imports = [
      ...importsOf("src/api/Foo.ts", "import { C } from \"../client/ApiClient.js\""),
      ...importsOf("src/client/Foo.ts", "import type { S } from \"../../simulator/apiserver/ApiServer.js\""),
      ...importsOf("src/informer/Foo.ts", "import { L } from \"../loadgen/Arrival.js\""),
      ...importsOf("src/loadgen/Foo.ts", "export * from \"../scenario/Run.js\""),
      ...importsOf("simulator/kernel/Foo.ts", "import * as fs from \"node:fs\"\nimport { C } from \"../../src/client/ApiClient.js\""),
      ...importsOf("simulator/scheduler/Foo.ts", "import { run } from \"../cluster/ClusterRun.js\"")
    ]
    expect(violationsOf(imports).map((v) => v.edge)).toEqual([
      "src/api/Foo.ts -> src/client/ApiClient.ts",
      "src/client/Foo.ts -> simulator/apiserver/ApiServer.ts",
      "src/informer/Foo.ts -> src/loadgen/Arrival.ts",
      "src/loadgen/Foo.ts -> src/scenario/Run.ts",
      "simulator/kernel/Foo.ts -> node:fs",
      "simulator/kernel/Foo.ts -> src/client/ApiClient.ts",
      "simulator/scheduler/Foo.ts -> simulator/cluster/ClusterRun.ts"
    ])
  })

  it("accepts the allowed directions", () => {
    const imports = [
      ...importsOf("src/client/Foo.ts", "import { A } from \"../api/Object.js\""),
      ...importsOf("src/loadgen/Foo.ts", "import { C } from \"../client/ApiClient.js\"\nimport { I } from \"../informer/Informer.js\""),
      ...importsOf("simulator/kernel/Foo.ts", "import { Effect } from \"effect\"\nimport * as Clock from \"effect/Clock\"\nimport { D } from \"./DueQueue.js\""),
      ...importsOf("simulator/apiserver/Foo.ts", "import { C } from \"../../src/client/ApiClient.js\""),
      ...importsOf("src/cli/Foo.ts", "import { S } from \"../../simulator/apiserver/ApiServer.js\"")
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
})
