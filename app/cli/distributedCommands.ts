/**
 * The commands of a distributed run (docs/distributed.md): `merge` the segments' artifacts, print a `job` of segments
 * for Kubernetes, `collect` what its pods published. Each loads what it runs when it runs (./merge.ts,
 * ./jobCommand.ts, ./collect.ts); ./commandLine.ts assembles them with the others.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { exitWith, integerFlag, load, optionalText, stderrLine, usageError, value } from "./CommandParts.js"
import { resolveTarget } from "./target.js"
import { targetOptions, targetValuesOf } from "./targetFlags.js"

export const merge = Command.make(
  "merge",
  {
    paths: Args.text({ name: "segment" }).pipe(Args.atLeast(1), Args.withDescription("Each segment's run directory or run.json (run --segment i/n).")),
    out: optionalText("out", "Directory for the merged run.json and reports (default runs/<timestamp>-<name>-merged/).", "DIR"),
    junit: optionalText("junit", "Also write the merged threshold results as JUnit XML to this file.", "FILE")
  },
  (o) => Effect.flatMap(load(() => import("./merge.js")), ({ mergeCommand }) => exitWith(mergeCommand({ paths: o.paths, outDir: value(o.out), junit: value(o.junit) })))
).pipe(
  Command.withDescription(
    "Merge the segment artifacts of one distributed run into one run: histograms added, counts summed, thresholds judged once, each segment's figures beside the whole. A missing or failed segment fails the run (docs/distributed.md)."
  )
)

export const job = Command.make(
  "job",
  {
    scenario: Args.text({ name: "scenario.yaml" }).pipe(Args.withDescription("The load scenario the Job's pods run.")),
    segments: integerFlag("segments", "How many segments: the Job's completions and parallelism, one pod each.").pipe(Options.withDefault(2)),
    image: Options.text("image").pipe(Options.withPseudoName("IMAGE"), Options.withDefault("clustersim:0.1.0"), Options.withDescription("The image the Dockerfile builds, as your registry names it.")),
    name: optionalText("name", "The Job's name, and the name collect reads the results by. Default: the scenario's name.", "NAME"),
    namespace: optionalText("namespace", "The Job's namespace, where the segments meet and store their results. Default: the scenario's generator.rendezvous.namespace, else default.", "NS")
  },
  (o) =>
    Effect.gen(function* () {
      const { jobCommand } = yield* load(() => import("./jobCommand.js"))
      yield* exitWith(jobCommand({ file: o.scenario, segments: o.segments, image: o.image, name: value(o.name), namespace: value(o.namespace) }))
    })
).pipe(
  Command.withDescription(
    "Print the manifests that run a load scenario as an Indexed Job of --segments pods against the cluster they run in: the scenario ConfigMap, a least-privilege ServiceAccount, the Job. Apply them, then clustersim collect NAME (docs/distributed.md)."
  )
)

export const collect = Command.make(
  "collect",
  {
    name: Args.text({ name: "name" }).pipe(Args.withDescription("The name the segments published under (run --publish NAME; the Job's name in clustersim job's manifests).")),
    ...targetOptions,
    namespace: Options.text("namespace").pipe(Options.withPseudoName("NS"), Options.withDefault("default"), Options.withDescription("Where the segments stored their artifacts: the scenario's generator.rendezvous.namespace.")),
    out: optionalText("out", "Directory for the segments' run.json files and the merged run (default runs/<timestamp>-<name>-collected/).", "DIR"),
    junit: optionalText("junit", "Also write the merged threshold results as JUnit XML to this file.", "FILE")
  },
  (o) =>
    Effect.gen(function* () {
      const target = yield* Effect.either(resolveTarget(targetValuesOf(o), { warn: stderrLine }))
      if (target._tag === "Left") return yield* usageError(target.left.message)
      const { collectCommand } = yield* load(() => import("./collect.js"))
      yield* exitWith(yield* collectCommand({ name: o.name, namespace: o.namespace, target: target.right, ...(Option.isSome(o.out) ? { outDir: o.out.value } : {}), ...(Option.isSome(o.junit) ? { junit: o.junit.value } : {}) }))
    })
).pipe(
  Command.withDescription(
    "Read the segment artifacts a distributed run's pods stored in the target (run --publish NAME) and merge them into one run, as merge does (docs/distributed.md \"On Kubernetes\")."
  )
)
