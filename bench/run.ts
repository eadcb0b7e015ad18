/**
 * `npm run bench`: runs every compiled benchmark in `dist/bench/` (each in its own child process, one after
 * another, so they do not share an event loop or a heap), or only the ones named:
 *   node dist/bench/run.js [NAME…] [-- ARGS…]     e.g. `node dist/bench/run.js loadgen -- --quick`
 * Helpers that are started by benchmarks (not benchmarks themselves) are skipped; `cluster-control-plane` is
 * `cluster --control-plane` (the issue-6 steady-state hour), `cluster-65k` is `cluster 65000 10 60` (issue 39).
 */
import { spawn } from "node:child_process"
import { readdirSync } from "node:fs"
import { basename } from "node:path"
import { fileURLToPath } from "node:url"

/** Started by other benchmarks as a target process. */
const helpers = new Set(["run", "bareServer", "calibrationCheck"])

/** Benchmarks that are another one with arguments of its own. */
const variants: Readonly<Record<string, readonly [script: string, ...args: string[]]>> = {
  "cluster-control-plane": ["cluster", "--control-plane"],
  "cluster-with-clients": ["cluster", "--control-plane", "--clients"],
  // issue 39's large cluster: 65,000 nodes × 10 pods, node lifecycle controller, no control plane
  "cluster-65k": ["cluster", "65000", "10", "60"]
}

/**
 * Node options of a benchmark's process. The clients' hour allocates short-lived garbage fast (a fiber and its
 * effects per modelled request, 5,000 watch streams): a 64 MiB young generation lets most of it die there instead of
 * being promoted and marked, ~7–10 % less CPU and a smaller peak heap (docs/benchmarks.md "With clients").
 */
const nodeOptions: Readonly<Record<string, ReadonlyArray<string>>> = {
  "cluster-with-clients": ["--max-semi-space-size=64"],
  // issue 39's figures for the large cluster are of `node --max-semi-space-size=64 dist/bench/cluster.js 65000 10 60`
  // (docs/benchmarks.md): the runner runs that, not V8's default 16 MiB semi-space
  "cluster-65k": ["--max-semi-space-size=64"]
}

const dir = fileURLToPath(new URL(".", import.meta.url))
const argv = process.argv.slice(2)
const dash = argv.indexOf("--")
const names = dash === -1 ? argv : argv.slice(0, dash)
const passThrough = dash === -1 ? [] : argv.slice(dash + 1)

const available = [
  ...readdirSync(dir)
    .filter((f) => f.endsWith(".js") && !f.startsWith("_"))
    .map((f) => basename(f, ".js"))
    .filter((n) => !helpers.has(n)),
  ...Object.keys(variants)
].sort()

const unknown = names.filter((n) => !available.includes(n))
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; available: ${available.join(", ")}`)
  process.exit(2)
}
const selected = names.length > 0 ? names : available

const runOne = (name: string): Promise<number> =>
  new Promise((resolve) => {
    const started = Date.now()
    console.log(`\n=== bench ${name} ===`)
    const [script, ...args] = variants[name] ?? [name]
    const child = spawn(process.execPath, [...(nodeOptions[name] ?? []), fileURLToPath(new URL(`./${script}.js`, import.meta.url)), ...args, ...passThrough], { stdio: "inherit" })
    child.on("exit", (code, signal) => {
      console.log(`=== ${name}: ${signal ?? `exit ${code}`} in ${((Date.now() - started) / 1000).toFixed(1)} s ===`)
      resolve(code ?? 1)
    })
  })

let failed = 0
for (const name of selected) if ((await runOne(name)) !== 0) failed++
process.exit(failed === 0 ? 0 : 1)
