/**
 * Simulator code lives in virtual time: it must not read the wall clock, arm real timers or draw unseeded randomness.
 * A line may carry `// wall-clock-ok` only in the files of ALLOWED (the kernel's real-clock layer).
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const MARKER = "wall-clock-ok"
const ALLOWED = new Set(["simulator/kernel/SimClock.ts"])

const FORBIDDEN: ReadonlyArray<readonly [string, RegExp]> = [
  ["Date.now", /\bDate\s*\.\s*now\b/],
  ["new Date() without an argument", /\bnew\s+Date\s*\(\s*\)/],
  ["new Date without parentheses", /\bnew\s+Date\b(?!\s*\()/],
  ["setTimeout", /\bsetTimeout\b/],
  ["setInterval", /\bsetInterval\b/],
  ["setImmediate", /\bsetImmediate\b/],
  ["Math.random", /\bMath\s*\.\s*random\b/],
  ["performance.now", /\bperformance\s*\.\s*now\b/],
  ["process.hrtime", /\bprocess\s*\.\s*hrtime\b/]
]

interface Violation {
  readonly file: string
  readonly line: number
  readonly rule: string
  readonly text: string
}

/**
 * Blanks out comments and the contents of string literals (keeping line breaks), so that prose and messages may
 * name the forbidden calls. Template literal `${…}` bodies stay code.
 */
const codeOnly = (source: string): string => {
  let out = ""
  let i = 0
  const n = source.length
  const templateDepth: Array<number> = [] // brace depth at which each open `${` returns to its template
  let braces = 0
  const blank = (s: string) => s.replace(/[^\n]/g, " ")
  while (i < n) {
    const c = source[i]!
    const next = source[i + 1]
    if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i)
      const stop = end === -1 ? n : end
      out += blank(source.slice(i, stop))
      i = stop
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2)
      const stop = end === -1 ? n : end + 2
      out += blank(source.slice(i, stop))
      i = stop
    } else if (c === "'" || c === "\"") {
      let j = i + 1
      while (j < n && source[j] !== c && source[j] !== "\n") j += source[j] === "\\" ? 2 : 1
      out += c + blank(source.slice(i + 1, j)) + (j < n ? source[j] : "")
      i = j + 1
    } else if (c === "`" || (c === "}" && templateDepth.length > 0 && templateDepth.at(-1) === braces)) {
      if (c === "}") templateDepth.pop()
      let j = i + 1
      while (j < n && source[j] !== "`" && !(source[j] === "$" && source[j + 1] === "{")) {
        j += source[j] === "\\" ? 2 : 1
      }
      out += c + blank(source.slice(i + 1, j))
      if (j < n && source[j] === "$") {
        out += "${"
        templateDepth.push(braces)
        i = j + 2
      } else {
        out += j < n ? "`" : ""
        i = j + 1
      }
    } else {
      if (c === "{") braces++
      else if (c === "}") braces--
      out += c
      i++
    }
  }
  return out
}

const scan = (file: string, source: string): Array<Violation> => {
  const violations: Array<Violation> = []
  const raw = source.split("\n")
  const code = codeOnly(source).split("\n")
  code.forEach((line, idx) => {
    const marked = raw[idx]!.includes(`// ${MARKER}`)
    if (marked && !ALLOWED.has(file)) {
      violations.push({ file, line: idx + 1, rule: `"${MARKER}" outside the allow-list`, text: raw[idx]!.trim() })
    }
    for (const [rule, pattern] of FORBIDDEN) {
      if (pattern.test(line) && !(marked && ALLOWED.has(file))) {
        violations.push({ file, line: idx + 1, rule, text: raw[idx]!.trim() })
      }
    }
  })
  return violations
}

const listTs = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name)
    if (e.isDirectory()) return listTs(full)
    return e.isFile() && e.name.endsWith(".ts") ? [full] : []
  })

describe("no wall clock in simulator/", () => {
  it("simulator/**/*.ts uses no wall clock, real timers or Math.random", () => {
    const files = listTs(path.join(ROOT, "simulator"))
    expect(files.length).toBeGreaterThan(0)
    const violations = files.flatMap((f) =>
      scan(path.relative(ROOT, f).split(path.sep).join("/"), fs.readFileSync(f, "utf8"))
    )
    expect(violations.map((v) => `${v.file}:${v.line} ${v.rule}: ${v.text}`)).toEqual([])
  })

  it("the scanner catches each forbidden call", () => {
    const source = [
      "const a = Date.now()",
      "const b = new Date()",
      "const c = setTimeout(f, 1)",
      "setInterval(f, 1)",
      "setImmediate(f)",
      "const d = Math.random()",
      "const e = performance.now()",
      "const f = process.hrtime.bigint()",
      "const g = new Date",
      "const ok = new Date(0)",
      "const t = `${Date.now()}`"
    ].join("\n")
    expect(scan("simulator/x/Foo.ts", source).map((v) => [v.line, v.rule])).toEqual([
      [1, "Date.now"],
      [2, "new Date() without an argument"],
      [3, "setTimeout"],
      [4, "setInterval"],
      [5, "setImmediate"],
      [6, "Math.random"],
      [7, "performance.now"],
      [8, "process.hrtime"],
      [9, "new Date without parentheses"],
      [11, "Date.now"]
    ])
  })

  it("ignores comments and string contents", () => {
    const source = [
      "// Date.now() would break determinism",
      "/* setTimeout(f) */ const x = 1",
      "const msg = \"do not call Math.random()\"",
      "const m2 = `no ${x} performance.now() here`"
    ].join("\n")
    expect(scan("simulator/x/Foo.ts", source)).toEqual([])
  })

  it("honours the marker only in allow-listed files", () => {
    const source = "const t = Date.now() // wall-clock-ok"
    expect(scan("simulator/kernel/SimClock.ts", source)).toEqual([])
    expect(scan("simulator/nodeagent/Lease.ts", source).map((v) => v.rule).sort()).toEqual(
      ["\"wall-clock-ok\" outside the allow-list", "Date.now"].sort()
    )
  })
})
