import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import { runCommand } from "../../app/cli/run.js"
import { hasAdminHooks } from "../../src/client/AdminProbe.js"
import type { RunArtifact } from "../../src/loadgen/Artifact.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-admin-"))
const scenario = join(dir, "failures.yaml")
writeFileSync(
  scenario,
  `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: failures }
setup:
  namespaces: [f]
  objects: [{ name: cms, resource: configmaps, namespace: f, count: 5 }]
phases:
  - name: p
    duration: 1500ms
    actions:
      - { type: constant-arrival-rate, name: get, rate: 20, request: { verb: get, objects: cms } }
      - { type: compact, name: compact, at: 200ms }
      - { type: drop-watches, name: drop, at: 300ms }
      - { type: pause, name: pause, at: 400ms, for: 200ms }
`
)

const scope = Effect.runSync(Scope.make())
let withAdmin = ""
let withoutAdmin = ""
beforeAll(async () => {
  const start = (admin: boolean) =>
    Effect.runPromise(serveHttp({ host: "127.0.0.1", port: 0, admin }).pipe(Effect.map((s) => s.url), Effect.provide(ApiServer.layer({ seed: 1 })), Scope.extend(scope)))
  withAdmin = await start(true)
  withoutAdmin = await start(false)
})
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

const run = (url: string) => {
  const err: Array<string> = []
  const outDir = join(dir, `out-${url.split(":").pop()}`)
  return Effect.runPromise(runCommand({ file: scenario, target: { _tag: "url", options: { baseUrl: url } }, outDir, tty: false, stdout: () => {}, stderr: (s) => void err.push(s) })).then(
    (r) => ({ ...r, err: err.join(""), outDir })
  )
}

describe("server-side failure steps over HTTP", () => {
  it("detects a `clustersim serve --admin` by its /clustersim/ hooks, without side effects", async () => {
    expect(await Effect.runPromise(hasAdminHooks(withAdmin))).toBe(true)
    expect(await Effect.runPromise(hasAdminHooks(withoutAdmin))).toBe(false)
    expect(await Effect.runPromise(hasAdminHooks("http://127.0.0.1:1"))).toBe(false)
  })

  it("compact, drop-watches and pause run against a serve --admin URL", async () => {
    const r = await run(withAdmin)
    expect(r.err).not.toContain("clustersim:")
    expect(r.exitCode).toBe(0)
    const a = JSON.parse(readFileSync(join(r.outDir, "run.json"), "utf8")) as RunArtifact
    const counts = Object.fromEntries(a.actions.filter((x) => x.type !== "constant-arrival-rate").map((x) => [x.action, x.counts]))
    expect(counts.compact).toMatchObject({ executed: 1 })
    expect(counts.compact!.compactedRevision).toBeGreaterThan(0)
    expect(counts.drop).toMatchObject({ executed: 1, droppedWatches: 0 })
    expect(counts.pause).toMatchObject({ executed: 1 })
  }, 30_000)

  it("stay refused, with the reason, against a server without the hooks", async () => {
    const r = await run(withoutAdmin)
    expect(r.exitCode).toBe(2)
    expect(r.err).toContain(
      "these failure steps need the simulated server's admin hooks (target embedded, in-process, or the URL of a `clustersim serve --admin`; this target has no /clustersim/ admin endpoints): phases[0].actions[1] (compact), phases[0].actions[2] (drop-watches), phases[0].actions[3] (pause)"
    )
  }, 30_000)
})
