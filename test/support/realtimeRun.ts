/**
 * Running a cluster scenario with `clustersim run --target URL` against a `serve` on a loopback port in this
 * process: the fast tier's refusals (test/cli/realtimeRefusals.test.ts) and the system tier's real-clock runs
 * (test/system/cli/realtime.test.ts) share it.
 */
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runCommand } from "../../app/cli/run.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"

export const dir = mkdtempSync(join(tmpdir(), "clustersim-realtime-"))
let n = 0
export const file = (text: string): string => {
  const f = join(dir, `s${n++}.yaml`)
  writeFileSync(f, text)
  return f
}

export const clusterScenario = (extra = "") => `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: rt }
duration: 3s
cluster:
  nodes: 4
  startSpread: 200ms
  nodeAgent: { config: { nodeLeaseDurationSeconds: 4 } }
  nodeLifecycle: { enabled: false }
${extra}phases: []
`

/** A `serve` (with or without admin hooks) on a loopback port for the test's scope. */
export const serve = (admin: boolean) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const built = yield* Scope.extend(
      Effect.flatMap(ApiServer, (api) => Effect.map(serveHttp({ host: "127.0.0.1", port: 0, admin }), (s) => ({ url: s.url, api }))),
      scope
    ).pipe(Effect.provide(ApiServer.layer({})))
    return { ...built, close: Scope.close(scope, Exit.void) }
  })

export const run = (f: string, url: string, cleanup = false) => {
  const stderr: Array<string> = []
  const stdout: Array<string> = []
  return runCommand({
    file: f,
    target: { _tag: "url", options: { baseUrl: url } },
    outDir: join(dir, `out${n++}`),
    tty: false,
    cleanup,
    stdout: (s) => void stdout.push(s),
    stderr: (s) => void stderr.push(s)
  }).pipe(Effect.map((r) => ({ ...r, stderr: stderr.join(""), stdout: stdout.join("") })))
}

