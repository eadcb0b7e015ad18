/**
 * `clustersim collect NAME [--namespace NS] [--out DIR]`: the segment artifacts a Job's pods stored in the target
 * (`run --publish NAME`, src/loadgen/ResultStore.ts) read back — of the Job's latest run — written under
 * `--out/segment-i/run.json` and merged into `--out/run.json` as `clustersim merge` does (./merge.ts). A segment
 * whose parts are not all there is missing, and named by the merge.
 */
import { Effect } from "effect"
import { join } from "node:path"
import { ApiClient } from "../../src/client/ApiClient.js"
import { defaultOutDir, writeAtomically } from "../../src/loadgen/Artifact.js"
import { assembleArtifacts, listResults } from "../../src/loadgen/ResultStore.js"
import { ExitCode } from "../../src/loadgen/Thresholds.js"
import { mergeCommand } from "./merge.js"
import type { TargetFlag } from "./target.js"

export interface CollectOptions {
  readonly name: string
  readonly namespace: string
  readonly target: TargetFlag
  readonly outDir?: string
  readonly junit?: string
  readonly stdout?: (s: string) => void
  readonly stderr?: (s: string) => void
}

export const collectCommand = (o: CollectOptions): Effect.Effect<number> =>
  Effect.gen(function* () {
    const err = o.stderr ?? ((s: string) => void process.stderr.write(s))
    if (o.target._tag !== "url") {
      err(`clustersim collect: the results are in a server: give --target URL, in-cluster or a kubeconfig, not ${o.target._tag}\n`)
      return ExitCode.InvalidInput
    }
    const listed = yield* Effect.either(listResults({ namespace: o.namespace, job: o.name }).pipe(Effect.provide(ApiClient.layerHttp(o.target.options))))
    if (listed._tag === "Left") {
      err(`clustersim collect: cannot list the results of ${o.name} in ${o.namespace}: ${listed.left.message}\n`)
      return ExitCode.RunError
    }
    if (listed.right.length === 0) {
      err(`clustersim collect: no results of ${o.name} in namespace ${o.namespace} (label clustersim.io/job=${o.name}): did its pods run with --publish ${o.name}?\n`)
      return ExitCode.RunError
    }
    const outDir = o.outDir ?? defaultOutDir(`${o.name}-collected`, new Date())
    const paths: Array<string> = []
    for (const c of assembleArtifacts(listed.right)) {
      if ("problem" in c) {
        err(`clustersim collect: ${c.problem}: counted as missing\n`)
        continue
      }
      const path = join(outDir, `segment-${c.segment}`, "run.json")
      writeAtomically(path, c.runJson)
      paths.push(path)
    }
    if (paths.length === 0) return ExitCode.RunError
    return mergeCommand({ paths, outDir, ...(o.junit !== undefined ? { junit: o.junit } : {}), ...(o.stdout ? { stdout: o.stdout } : {}), stderr: err })
  })
