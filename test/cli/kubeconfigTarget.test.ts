/**
 * What `run`, `compare` and `calibrate` target when no --target is given: the kubeconfig client-go's loading rules
 * find (environment injected), `--context` alone, an explicit --target winning, and compare's per-side flags.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import type { LoadingEnvironment } from "../../src/client/KubeconfigLoading.js"
import { describeTarget, resolveTarget, type TargetValues } from "../../app/cli/target.js"
import { sidesOf } from "../../app/cli/targetFlags.js"
import { calibrateCommand } from "../../app/cli/calibrate.js"

const dir = mkdtempSync(path.join(os.tmpdir(), "clustersim-kubeconfig-target-"))
const write = (name: string, text: string) => {
  const file = path.join(dir, name)
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, text)
  return file
}
const twoContexts = write(
  "env.yaml",
  `current-context: kind-a
clusters:
- { name: a, cluster: { server: "http://127.0.0.1:7001" } }
- { name: b, cluster: { server: "http://127.0.0.1:7002" } }
users:
- { name: ua, user: { token: ta } }
- { name: ub, user: { token: tb } }
contexts:
- { name: kind-a, context: { cluster: a, user: ua } }
- { name: kind-b, context: { cluster: b, user: ub } }
`
)
const home = path.join(dir, "home")
write("home/.kube/config", `current-context: h\nclusters:\n- { name: h, cluster: { server: "http://127.0.0.1:7003" } }\ncontexts:\n- { name: h, context: { cluster: h } }\n`)
const env = (kubeconfigEnv: string | undefined, h = home): LoadingEnvironment => ({ kubeconfigEnv, home: h, read: (p) => readFile(p, "utf8") })
const noHome = path.join(dir, "nohome")

const resolve = (values: TargetValues, e: LoadingEnvironment, ambient?: boolean) => {
  const warnings: Array<string> = []
  return Effect.map(resolveTarget(values, { env: e, warn: (l) => void warnings.push(l), ...(ambient !== undefined ? { ambient } : {}) }), (t) => ({ line: describeTarget(t), t, warnings }))
}
const failure = (values: TargetValues, e: LoadingEnvironment) => Effect.map(Effect.flip(resolveTarget(values, { env: e })), (x) => x.message)

describe("the target without --target", () => {
  it.effect("$KUBECONFIG is honoured: its current-context, with its credentials", () =>
    Effect.gen(function* () {
      const r = yield* resolve({}, env(twoContexts))
      expect(r.t).toEqual({ _tag: "url", options: { baseUrl: "http://127.0.0.1:7001", token: "ta" }, context: "kind-a", from: "$KUBECONFIG" })
      expect(r.line).toBe("target: http://127.0.0.1:7001 (context kind-a from $KUBECONFIG)")
    }))

  it.effect("--context alone picks a context of whatever the rules load", () =>
    Effect.gen(function* () {
      expect((yield* resolve({ context: "kind-b" }, env(twoContexts))).line).toBe("target: http://127.0.0.1:7002 (context kind-b from $KUBECONFIG)")
      expect((yield* resolve({ context: "h" }, env(undefined))).line).toBe("target: http://127.0.0.1:7003 (context h from ~/.kube/config)")
      expect(yield* failure({ context: "nope" }, env(twoContexts))).toBe(`kubeconfig ($KUBECONFIG) ${twoContexts}: context "nope" not found`)
      expect(yield* failure({ context: "x" }, env(undefined, noHome))).toBe(
        "--context: context was not found for specified context: x (no kubeconfig: no --kubeconfig, $KUBECONFIG unset and no ~/.kube/config)"
      )
    }))

  it.effect("~/.kube/config when $KUBECONFIG is unset or empty; the embedded server when there is none", () =>
    Effect.gen(function* () {
      expect((yield* resolve({}, env(undefined))).line).toBe("target: http://127.0.0.1:7003 (context h from ~/.kube/config)")
      expect((yield* resolve({}, env(""))).line).toBe("target: http://127.0.0.1:7003 (context h from ~/.kube/config)")
      const none = yield* resolve({}, env(undefined, noHome))
      expect(none.t).toEqual({ _tag: "embedded", serverProcess: "own" })
      expect(none.line).toBe("target: embedded simulated server (no --target, no kubeconfig)")
      expect(none.warnings).toEqual([])
    }))

  it.effect("$KUBECONFIG naming only missing files: client-go's warning, no fallback to ~/.kube/config, the embedded server", () =>
    Effect.gen(function* () {
      const absent = path.join(dir, "absent.yaml")
      const r = yield* resolve({}, env(absent))
      expect(r.t._tag).toBe("embedded")
      expect(r.warnings).toEqual([`Config not found: ${absent}`])
    }))

  it.effect("precedence: --kubeconfig over $KUBECONFIG; an explicit --target (embedded, in-process, a URL) over any kubeconfig", () =>
    Effect.gen(function* () {
      const explicit = write("explicit.yaml", `current-context: e\nclusters:\n- { name: e, cluster: { server: "http://127.0.0.1:7004" } }\ncontexts:\n- { name: e, context: { cluster: e } }\n`)
      expect((yield* resolve({ kubeconfig: explicit }, env(twoContexts))).line).toBe("target: http://127.0.0.1:7004 (context e from --kubeconfig)")
      expect((yield* resolve({ target: "embedded" }, env(twoContexts))).t).toEqual({ _tag: "embedded", explicit: true, serverProcess: "own" })
      expect((yield* resolve({ target: "in-process" }, env(twoContexts))).line).toBe("target: in-process simulated server")
      expect((yield* resolve({ target: "http://127.0.0.1:9", token: "t" }, env(twoContexts))).line).toBe("target: http://127.0.0.1:9 (--target)")
      expect(yield* failure({ target: "embedded", context: "kind-a" }, env(twoContexts))).toBe("--target and --context are mutually exclusive (a context comes from a kubeconfig)")
      expect(yield* failure({ token: "t" }, env(twoContexts))).toBe(
        "--token: only with --target URL (a kubeconfig gives its own credentials; embedded and in-process need none)"
      )
    }))

  it.effect("start (ambient: false) ignores the environment's kubeconfig unless --context or --kubeconfig asks", () =>
    Effect.gen(function* () {
      expect((yield* resolve({}, env(twoContexts), false)).t._tag).toBe("embedded")
      expect((yield* resolve({ context: "kind-b" }, env(twoContexts), false)).line).toBe("target: http://127.0.0.1:7002 (context kind-b from $KUBECONFIG)")
    }))
})

describe("calibrate's target", () => {
  it.effect("a kubeconfig context like run's; without --target and with no kubeconfig: what to give", () =>
    Effect.gen(function* () {
      const err: Array<string> = []
      const quiet = { stdout: () => {}, stderr: (s: string) => void err.push(s) }
      // context kind-b's server is not listening: the probe fails (exit 1) after saying which server it probed
      const r = yield* calibrateCommand({ context: "kind-b", env: env(twoContexts), stepMs: 100, probe: { listSizes: [0], bodyKiB: [1], maxSamples: 1 }, ...quiet })
      expect(r.exitCode).toBe(1)
      expect(err[0]).toBe("target: http://127.0.0.1:7002 (context kind-b from $KUBECONFIG)\n")
      err.length = 0
      expect((yield* calibrateCommand({ env: env(undefined, noHome), ...quiet })).exitCode).toBe(2)
      expect(err).toEqual(["clustersim calibrate: no server to probe: give --target URL, or a kubeconfig (--kubeconfig, $KUBECONFIG or ~/.kube/config)\n"])
    }))
})

describe("compare's sides", () => {
  const none = { target: [], kubeconfig: [], context: [], token: [], ca: [], clientCert: [], clientKey: [], insecureSkipTlsVerify: false }
  it("each flag once per side or once for all; an empty value unsets it for its side", () => {
    expect(sidesOf({ ...none, kubeconfig: ["k.yaml"], context: ["x", "y"] })).toEqual({
      sides: [
        { target: undefined, kubeconfig: "k.yaml", context: "x", token: undefined, ca: undefined, clientCert: undefined, clientKey: undefined, insecureSkipTlsVerify: false },
        { target: undefined, kubeconfig: "k.yaml", context: "y", token: undefined, ca: undefined, clientCert: undefined, clientKey: undefined, insecureSkipTlsVerify: false }
      ]
    })
    const mixed = sidesOf({ ...none, target: ["embedded", ""], context: ["", "kind-b"] })
    expect("sides" in mixed && mixed.sides.map((s) => [s.target, s.context])).toEqual([
      ["embedded", undefined],
      [undefined, "kind-b"]
    ])
    expect(sidesOf({ ...none, target: ["http://a", "http://b", "http://c"], token: ["1", "2"] })).toEqual({
      error: "--token: given 2 times for 3 sides; give it once for every side, or once for all"
    })
    expect(sidesOf(none)).toEqual({ sides: [] })
  })
})
