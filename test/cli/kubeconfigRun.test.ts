/**
 * The command line honours kubeconfig conventions end to end (in this process, against served token-auth servers
 * that refuse anonymous requests): `run` with only `$KUBECONFIG` set goes to its current-context's server with its
 * token, and `compare` takes two authenticated sides — per-side `--target`/`--token`, or one kubeconfig's contexts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import { resolveResource } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { main } from "../../app/cli/main.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-kubeconfig-run-"))
const scope = Effect.runSync(Scope.make())
const servers: Array<{ url: string; token: string }> = []

beforeAll(async () => {
  for (const [seed, token] of [
    [1, "token-a"],
    [2, "token-b"]
  ] as const) {
    const tokens = new Map([[token, { name: `user-${seed}`, uid: String(seed), groups: ["system:masters"] }]])
    const url = await Effect.runPromise(
      serveHttp({ host: "127.0.0.1", port: 0, admin: false }).pipe(
        Effect.map((s) => s.url),
        Effect.provide(ApiServer.layer({ seed, authentication: { anonymous: false, tokens } })),
        Scope.extend(scope)
      )
    )
    servers.push({ url, token })
  }
})
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))
afterEach(() => void vi.restoreAllMocks())

const scenario = join(dir, "kc.yaml")
writeFileSync(
  scenario,
  `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: kc }
setup:
  namespaces: [kc]
  objects: [{ name: cms, resource: configmaps, namespace: kc, count: 5 }]
phases:
  - name: steady
    duration: 300ms
    actions:
      - { type: constant-arrival-rate, name: list, rate: 20, request: { verb: list, resource: configmaps, namespace: kc } }
`
)

const kubeconfig = () => {
  const file = join(dir, "config")
  writeFileSync(
    file,
    `apiVersion: v1
kind: Config
current-context: b
clusters:
- { name: a, cluster: { server: "${servers[0]!.url}" } }
- { name: b, cluster: { server: "${servers[1]!.url}" } }
users:
- { name: a, user: { token: ${servers[0]!.token} } }
- { name: b, user: { token: ${servers[1]!.token} } }
contexts:
- { name: a, context: { cluster: a, user: a } }
- { name: b, context: { cluster: b, user: b } }
`
  )
  return file
}

/** main(args) with $KUBECONFIG set to `env` for the call only, its output captured. */
const capture = async (args: ReadonlyArray<string>, env: string | undefined) => {
  const out: Array<string> = []
  const err: Array<string> = []
  const before = process.env.KUBECONFIG
  if (env === undefined) delete process.env.KUBECONFIG
  else process.env.KUBECONFIG = env
  vi.spyOn(process.stdout, "write").mockImplementation((s) => (out.push(String(s)), true))
  vi.spyOn(process.stderr, "write").mockImplementation((s) => (err.push(String(s)), true))
  vi.spyOn(console, "log").mockImplementation((...xs) => void out.push(xs.join(" ") + "\n"))
  try {
    const code = await main(args)
    return { code, out: out.join(""), err: err.join("") }
  } finally {
    vi.restoreAllMocks()
    if (before === undefined) delete process.env.KUBECONFIG
    else process.env.KUBECONFIG = before
  }
}

const configMapsOn = (server: { url: string; token: string }) =>
  Effect.runPromise(
    ApiClient.pipe(
      Effect.flatMap((api) => api.list(resolveResource("configmaps")!, { namespace: "kc" })),
      Effect.map((l) => l.items.length),
      Effect.provide(ApiClient.layerHttp({ baseUrl: server.url, token: server.token }))
    )
  )

describe("kubeconfig conventions on the command line", () => {
  it("run with only $KUBECONFIG set goes to its current-context's server, with its token, and says so first", async () => {
    const before = await configMapsOn(servers[1]!)
    const outDir = join(dir, "run")
    const r = await capture(["run", scenario, "--out", outDir, "--workers", "1"], kubeconfig())
    expect(r.err.split("\n")[0]).toBe(`target: ${servers[1]!.url} (context b from $KUBECONFIG)`)
    expect(r.code).toBe(0)
    const artifact = JSON.parse(readFileSync(join(outDir, "run.json"), "utf8"))
    expect(artifact.target).toMatchObject({ kind: "url", url: servers[1]!.url, context: "b" })
    // the setup's config maps are on server B, none on A
    expect((await configMapsOn(servers[1]!)) - before).toBe(5)
    expect(await configMapsOn(servers[0]!)).toBe(0)
  }, 60_000)

  it("compare with two token-authenticated targets: --target A --target B --token TA --token TB", async () => {
    const outDir = join(dir, "compare-urls")
    const r = await capture(
      ["compare", scenario, "--target", servers[0]!.url, "--target", servers[1]!.url, "--token", servers[0]!.token, "--token", servers[1]!.token, "--rounds", "2", "--warmup-rounds", "0", "--out", outDir],
      undefined
    )
    expect(r.err).toContain(`A: target: ${servers[0]!.url} (--target)\nB: target: ${servers[1]!.url} (--target)\n`)
    expect(r.err).toMatch(/round 2\/2 [AB] \(http:\/\/127\.0\.0\.1:\d+\): pass/)
    expect(r.code).toBe(0)
    const json = JSON.parse(readFileSync(join(outDir, "compare.json"), "utf8"))
    expect(json.sides.map((s: { target: string; failedRounds: number }) => [s.target, s.failedRounds])).toEqual([
      [`url ${servers[0]!.url}`, 0],
      [`url ${servers[1]!.url}`, 0]
    ])
  }, 60_000)

  it("compare with one kubeconfig's two contexts: --kubeconfig F --context a --context b", async () => {
    const file = kubeconfig()
    const r = await capture(["compare", scenario, "--kubeconfig", file, "--context", "a", "--context", "b", "--rounds", "2", "--warmup-rounds", "0", "--out", join(dir, "compare-contexts")], undefined)
    expect(r.err).toContain(`A: target: ${servers[0]!.url} (context a from --kubeconfig)\nB: target: ${servers[1]!.url} (context b from --kubeconfig)\n`)
    expect(r.code).toBe(0)
  }, 60_000)

  it("compare with one --token for both sides: it goes to both, so A (which does not know it) fails its round", async () => {
    const r = await capture(
      ["compare", scenario, "--target", servers[0]!.url, "--target", servers[1]!.url, "--token", servers[1]!.token, "--rounds", "1", "--warmup-rounds", "0", "--out", join(dir, "compare-wrong")],
      undefined
    )
    expect(r.err).toMatch(/^round 1\/1 A \(http:\/\/127\.0\.0\.1:\d+\): run-error/m)
    expect(r.err).toMatch(/^round 1\/1 B \(http:\/\/127\.0\.0\.1:\d+\): pass/m)
    expect(r.out).toContain(`A: url ${servers[0]!.url}, 1 round, 1 did not pass`)
  }, 60_000)
})
