/**
 * Patch costs on one object (issue 16): merge patch, strategic merge patch and server-side apply of the same
 * label change on a three-container pod, plus a strategic patch of one container's image by name, through the
 * server's write path in-process (decode, patch, validation, managed fields, store; no HTTP). Prints writes/s
 * and µs per write for each. Run compiled: `npm run build && node dist/bench/patch.js [--quick]`.
 */
import { performance } from "node:perf_hooks"
import { Either } from "effect"
import { Pods } from "../src/api/Resources.js"
import type { PatchType, WriteOptions } from "../src/api/Requests.js"
import { ApiServerImpl, defaultConfig } from "../simulator/apiserver/ApiServer.js"

const quick = process.argv.includes("--quick")
const iterations = quick ? 2_000 : 20_000

const server = new ApiServerImpl(defaultConfig, 0)
const container = (name: string) => ({
  name,
  image: `${name}:1`,
  ports: [{ containerPort: 8080, name: "http" }],
  env: [{ name: "MODE", value: "bench" }],
  resources: { requests: { cpu: "100m", memory: "64Mi" } }
})
const created = server.createAt(
  Pods,
  { value: { metadata: { name: "p", labels: { app: "bench" } }, spec: { containers: [container("a"), container("b"), container("c")] } } },
  { namespace: "default", fieldManager: "bench" },
  0
)
if (Either.isLeft(created)) throw new Error(created.left.message)

const cases: ReadonlyArray<readonly [string, PatchType, (i: number) => unknown, WriteOptions]> = [
  ["merge patch (label)", "merge", (i) => ({ metadata: { labels: { step: String(i) } } }), {}],
  ["strategic merge patch (label)", "strategic", (i) => ({ metadata: { labels: { step: String(i) } } }), {}],
  ["server-side apply (label)", "apply", (i) => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels: { step: String(i) } } }), { fieldManager: "applier", force: true }],
  ["strategic merge patch (container image by name)", "strategic", (i) => ({ spec: { containers: [{ name: "b", image: `b:${i}` }] } }), {}]
]

for (const [name, type, body, opts] of cases) {
  let now = 1_000
  const run = (n: number) => {
    for (let i = 0; i < n; i++) {
      const r = server.patchAt(Pods, "p", type, { value: body(i) }, { namespace: "default", fieldManager: "bench", ...opts }, (now += 1))
      if (Either.isLeft(r)) throw new Error(`${name}: ${r.left.message}`)
    }
  }
  run(Math.min(1_000, iterations))
  const started = performance.now()
  run(iterations)
  const ms = performance.now() - started
  console.log(`${name.padEnd(50)} ${Math.round((iterations / ms) * 1000).toString().padStart(8)} writes/s  ${((ms * 1000) / iterations).toFixed(1).padStart(7)} µs/write`)
}
