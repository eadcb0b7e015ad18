/**
 * Segments given different `--segment-sequence`s meet at the rendezvous (src/loadgen/Rendezvous.ts) and are refused
 * there, before any load phase: both `run --segment … --rendezvous ID` in this process against a `serve` on a loopback
 * port (the rendezvous' clock-skew probe needs HTTP), each ending with the refusal naming both sequences.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runCommand } from "../../../app/cli/run.js"
import { ApiServer } from "../../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../../simulator/apiserver/HttpServer.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-segseq-"))

const scenario = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: segments-sequence }
seed: 5
generator:
  rendezvous: { namespace: distributed, margin: 1s, timeout: 60s }
setup:
  namespaces: [load]
  objects:
    - { name: cms, resource: configmaps, namespace: load, count: 5, template: { data: { k: v } } }
phases:
  - name: steady
    duration: 3s
    actions:
      - { type: constant-arrival-rate, name: gets, rate: 20, request: { verb: get, objects: cms } }
`

describe("run --segment --rendezvous with different sequences", () => {
  it.live(
    "each segment is refused at the rendezvous, naming both sequences, and none sends its phase's requests",
    () =>
      Effect.gen(function* () {
        const scope = yield* Scope.make()
        const url = yield* Scope.extend(Effect.map(serveHttp({ host: "127.0.0.1", port: 0, admin: false }), (h) => h.url), scope).pipe(Effect.provide(ApiServer.layer({})))
        const file = join(dir, "s.yaml")
        writeFileSync(file, scenario)
        const stdout: Array<Array<string>> = [[], []]
        // 0:1/4 of 0,1/4,3/4,1 (the first: it runs the setup, then registers) and 2/3 of three equal parts
        const parts = [{ index: 0, count: 3, sequence: "0,1/4,3/4,1" }, { index: 1, count: 3 }]
        const runs = yield* Effect.all(
          parts.map((segment, i) =>
            runCommand({
              file,
              target: { _tag: "url", options: { baseUrl: url } },
              outDir: join(dir, `segment-${i + 1}`),
              tty: false,
              segment,
              rendezvous: "sequence-test",
              stdout: (s) => void stdout[i]!.push(s),
              stderr: () => {}
            })
          ),
          { concurrency: "unbounded" }
        )
        const refusal =
          "rendezvous distributed/clustersim-rendezvous-sequence-test: segment 0:1/4 is a part of the sequence 0,1/4,3/4,1, but the segments there are parts of 0,1/3,2/3,1: give every segment of the run the same --segment-sequence"
        expect(runs.map((r) => r.exitCode)).toEqual([1, 1])
        // the second registered first, with its sequence; the first, after its setup, is refused; the second, waiting, is told
        expect(runs.map((r) => r.artifact!.runError)).toEqual([refusal, refusal])
        for (const r of runs) expect(r.artifact!.series.filter((s) => s.key.metric === "api_call").reduce((n, s) => n + s.count + s.dropped, 0)).toBe(0)
        for (const out of stdout) expect(out.join("")).toContain(`RUN ERROR: ${refusal} (exit 1)`)
        yield* Scope.close(scope, Exit.void)
      }),
    60_000
  )
})
