/**
 * `clustersim calibrate` against a server in this process on a loopback port, with the shortest steps: every probe
 * step reported without a terminal, the block written, and what the probe created removed. The probe against
 * `serve` in its own process, and the simulation's answer to the fit, are test/system/calibrate/CalibrateCommand.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parse } from "yaml"
import { resolveResource } from "../../src/api/Resources.js"
import { calibrateCommand } from "../../app/cli/calibrate.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"

describe("clustersim calibrate, in process", () => {
  it.live("probes each step, writes the serviceTime block and leaves nothing behind", () =>
    Effect.gen(function* () {
      const api = yield* ApiServer
      const server = yield* serveHttp({ host: "127.0.0.1", port: 0, admin: false })
      const out = join(mkdtempSync(join(tmpdir(), "calibrate-fast-")), "serviceTime.yaml")
      const stderr: Array<string> = []
      const result = yield* calibrateCommand({
        target: server.url,
        out,
        stepMs: 100,
        paceMs: 5,
        probe: { listSizes: [0, 50], bodyKiB: [1, 4], maxSamples: 8 },
        stderr: (s) => void stderr.push(s)
      })
      expect(result.exitCode, stderr.join("")).toBe(0)
      const lines = stderr.join("").split("\n").filter((l) => l.startsWith("calibrate:"))
      expect(lines.slice(0, 4)).toEqual([
        "calibrate: 50 objects created for the LIST steps",
        "calibrate: round 1 of 3 done",
        "calibrate: round 2 of 3 done",
        "calibrate: round 3 of 3 done"
      ])
      expect(lines.slice(4).map((l) => l.split(":")[1]!.trim())).toEqual([
        "get 1 KiB",
        "list 0 objects",
        "list 50 objects",
        "create 1 KiB",
        "create 4 KiB",
        "GET during a LIST of 50",
        "watch start"
      ])
      const block = parse(readFileSync(out, "utf8")) as { serviceTime: Record<string, number> }
      expect(block.serviceTime).toEqual(result.fit!.serviceTime)
      const left = yield* api.list(resolveResource("configmaps")!)
      expect(left.items.filter((c) => c.metadata.namespace?.startsWith("clustersim-calibrate"))).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(ApiServer.layer({ seed: 1 })))
  )
})
