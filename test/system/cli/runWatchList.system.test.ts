/**
 * The load generator's informers against a server in its own process over HTTP (docs/watchlist.md): with the
 * scenario's `clientFeatureGates.WatchListClient` they sync and relist by WatchList where the server has the gate
 * (`clustersim serve --feature-gates WatchList=true`), and fall back to LIST + WATCH where it has not — the same
 * scenario, its artifact saying which happened. The relist: writes elsewhere move the revision past the informers'
 * rv, then compaction and dropped watches (`--admin`) answer their re-watch 410.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const children: ChildProcess[] = []
afterAll(() => children.forEach((c) => c.kill("SIGTERM")))

const dir = mkdtempSync(join(tmpdir(), "clustersim-watchlist-"))

const cli = (args: ReadonlyArray<string>) => spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", ...args], { stdio: ["ignore", "pipe", "pipe"] })

const serve = (args: ReadonlyArray<string>): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = cli(["serve", "--port", "0", "--admin", ...args])
    children.push(child)
    let stdout = ""
    child.stdout!.on("data", (d: Buffer) => {
      stdout += d.toString()
      const listening = /listening on (http:\/\/\S+)/.exec(stdout)
      if (listening) resolve(listening[1]!)
    })
    child.on("exit", (code) => reject(new Error(`serve exited ${code}`)))
  })

const run = (file: string, url: string, out: string): Promise<{ code: number | null; stderr: string }> =>
  new Promise((resolve) => {
    const child = cli(["run", file, "--target", url, "--out", out])
    children.push(child)
    let stderr = ""
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()))
    child.on("exit", (code) => resolve({ code, stderr }))
  })

const scenario = join(dir, "relist.yaml")
writeFileSync(
  scenario,
  `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: relist-watchlist-http }
clientFeatureGates:
  WatchListClient: true
setup:
  namespaces: [wl, busy]
  objects:
    - { name: cms, resource: configmaps, namespace: wl, count: 150 }
    - { name: busy, resource: configmaps, namespace: busy, count: 10 }
phases:
  - name: p
    duration: 8s
    actions:
      - { type: informers, name: inf, resource: configmaps, namespace: wl, count: 3 }
      - { type: constant-arrival-rate, name: writes, rate: 20, request: { verb: patch, objects: busy } }
      - { type: compact, at: 3s }
      - { type: drop-watches, at: 3s }
`
)

interface InformerReport {
  readonly count: number
  readonly synced: number
  readonly relists: number
  readonly watchListSyncs?: number
  readonly watchListFallbacks?: number
}

const informersOf = (out: string): InformerReport =>
  (JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as { actions: Array<{ action: string; informers?: InformerReport }> }).actions.find((a) => a.action === "inf")!.informers!

describe("informers with WatchListClient over HTTP against clustersim serve", () => {
  it("stream their syncs and relists where the server has the WatchList gate", async () => {
    const url = await serve(["--feature-gates", "WatchList=true"])
    const out = join(dir, "on")
    const r = await run(scenario, url, out)
    expect(r.code, r.stderr).toBe(0)
    const inf = informersOf(out)
    expect(inf).toMatchObject({ count: 3, synced: 3, relists: 3, watchListSyncs: 6 })
    expect(inf.watchListFallbacks).toBeUndefined()
  }, 120_000)

  it("fall back to LIST + WATCH for every sync where it has not (422), and still sync and relist", async () => {
    const url = await serve([])
    const out = join(dir, "off")
    const r = await run(scenario, url, out)
    expect(r.code, r.stderr).toBe(0)
    const inf = informersOf(out)
    expect(inf).toMatchObject({ count: 3, synced: 3, relists: 3, watchListFallbacks: 6 })
    expect(inf.watchListSyncs).toBeUndefined()
  }, 120_000)
})
