/**
 * `clustersim run cluster.yaml --target URL | --kubeconfig FILE | --target embedded`: the
 * scenario's cluster section on the real clock against that target (simulator/cluster/RealTimeCluster.ts, docs/cluster.md
 * "Real time"), its load phases beside it against the same target. Without `--target` a cluster scenario runs in
 * virtual time (./VirtualTimeDriver.ts). The `scheduler:` section runs beside the agents (its replicas electing a leader on the target);
 * the eviction section exists only in virtual time (one node's usage model, no agent to host it): refused here, by name.
 * With `--segment` (docs/distributed.md "Real-time clusters") the first segment runs the setup, every segment meets the
 * others at the common start (./CommonStart.ts), then runs the nodes it owns and its share of the load phases.
 */
import { progressLine } from "../../../reports/progress.js"
import { Cause, Effect, Either, Exit, Fiber, Option } from "effect"
import { dirname } from "node:path"
import { DefaultSchedulerDurationMs } from "../../../simulator/scheduler/SchedulerScenario.js"
import { unexpectedFailures } from "../../../simulator/cluster/CountingClient.js"
import { realTimeProblems, runRealTimeCluster, type RealTimeClusterResult } from "../../../simulator/cluster/RealTimeCluster.js"
import { simulatedLabel, simulatedLabelValue } from "../../../src/api/WellKnown.js"
import type { TrafficCounter } from "../../../src/client/HttpTransport.js"
import { encodeSeries, LatencyRecorder, nowMillis } from "../../../src/loadgen/LatencyRecorder.js"
import { check } from "../../scenario/Outcome.js"
import { makeRunState, runScenario, runTagOf, withClientGates } from "../../scenario/Run.js"
import { placeOf, runsOnce, wholeRun } from "../../../src/loadgen/ExecutionSegment.js"
import { type AgreedStart, agreeOnStart, untilInstant } from "./CommonStart.js"
import { simulationOf } from "../../scenario/Simulated.js"
import type { TargetFlag } from "../target.js"
import { type Driver, type DriverCluster, hostOf, Refused, withTarget } from "./Driver.js"
import { serveLiveMetrics } from "../LiveMetrics.js"
import { serverSideReaderFor } from "./ServerSide.js"

/**
 * Whether a scenario with simulated sections runs on the real clock: a server was named (a URL, a kubeconfig,
 * `--target embedded`). Without `--target`, and with `--target in-process` — the simulation's own server, in this
 * process — it runs in virtual time.
 */
export const runsInRealTime = (target: TargetFlag): boolean => target._tag === "url" || (target._tag === "embedded" && target.explicit === true)

const ownedSelector = `${simulatedLabel}=${simulatedLabelValue}`

/** The failed agent (and scheduler) requests, judged like thresholds: a run whose requests failed never passes. */
export const agentChecks = (r: Pick<RealTimeClusterResult, "realTime">) => {
  const failed = Object.values(r.realTime.errorsByCode).reduce((a, b) => a + b, 0)
  const scheduler = r.realTime.schedulerErrorsByCode
  const schedulerFailed = scheduler === undefined ? 0 : unexpectedFailures(scheduler)
  return [
    check("outcome:node-agent-requests", "failed node-agent requests == 0", failed, failed === 0),
    ...(scheduler !== undefined ? [check("outcome:scheduler-requests", "failed scheduler requests (but 404, 409) == 0", schedulerFailed, schedulerFailed === 0)] : [])
  ]
}

export const realTimeDriver: Driver = {
  name: "real-time cluster",
  run: (i) =>
    Effect.gen(function* () {
      const { scenario, err } = i
      const simulation = simulationOf(scenario, i.seed, dirname(i.file))
      const spec = scenario.cluster
      if (spec === undefined || scenario.eviction !== undefined) {
        return Either.left(
          new Refused({
            line:
              spec === undefined
                ? `clustersim: ${i.file}: with a target, the simulated sections run on the real clock beside a "cluster" section (the scheduler places pods on its nodes); this scenario has none: run it without --target\n`
                : `clustersim: ${i.file}: "eviction": the eviction section runs only in virtual time (run without --target); a target runs the "cluster" section and its "scheduler"\n`
          })
        )
      }
      // the section's own length as in virtual time (app/scenario/Simulated.ts): its duration, else the scenario's
      const scheduler = scenario.scheduler && {
        ...scenario.scheduler,
        duration: scenario.scheduler.duration ?? (scenario.duration !== undefined ? simulation.durationMs : DefaultSchedulerDurationMs)
      }
      const traffic: TrafficCounter = { bytesIn: 0, bytesOut: 0 }
      return yield* withTarget(i, traffic, (target) =>
        Effect.gen(function* () {
          const problems = realTimeProblems(spec, simulation.faults, target.admin !== undefined, scheduler)
          if (problems.length > 0) return Either.left(new Refused({ line: `clustersim: ${i.file}: ${problems.join("; ")}\n` }))
          // a segment (docs/distributed.md): the first runs the setup, then all begin at the common start
          const own = i.segment ?? wholeRun
          const segmented = i.segment !== undefined
          const credentials = target.credentials ? { credentials: target.credentials } : {}
          const setupState = makeRunState(yield* nowMillis)
          const setupRecorder = yield* LatencyRecorder.make()
          if (segmented && runsOnce(own) && scenario.phases.length > 0) {
            const setup = yield* Effect.exit(
              runScenario(scenario, { seed: i.seed, admin: target.admin, state: setupState, parts: "setup", ...credentials }).pipe(Effect.provideService(LatencyRecorder, setupRecorder))
            )
            if (Exit.isFailure(setup)) return Either.right({ target: target.identity, clock: "real" as const, recorder: setupRecorder, state: setupState, error: setup.cause, segment: { ...placeOf(own), startAtMs: 0, startLagMs: 0 } })
          }
          const agreed = segmented ? yield* agreeOnStart(i, own) : Either.right<AgreedStart>({ agreedStartMs: undefined, localStartAtMs: undefined })
          if (Either.isLeft(agreed)) return Either.right({ target: target.identity, clock: "real" as const, recorder: setupRecorder, state: setupState, error: Cause.fail(agreed.left.error), segment: agreed.left.place })
          const startAtMs = agreed.right.localStartAtMs
          const state = startAtMs !== undefined ? { ...setupState, startedAtMs: startAtMs } : makeRunState(yield* nowMillis)
          const recorder = yield* (segmented ? LatencyRecorder.make({ originMs: state.startedAtMs }) : LatencyRecorder.make())
          for (const series of yield* setupRecorder.snapshot) yield* recorder.merge(encodeSeries(series))
          if (startAtMs !== undefined) yield* untilInstant(startAtMs)
          const startLagMs = startAtMs !== undefined ? Math.max(0, (yield* nowMillis) - startAtMs) : 0
          const place = segmented
            ? { segment: { ...placeOf(own), startAtMs: agreed.right.agreedStartMs ?? state.startedAtMs, startLagMs, ...(agreed.right.clockSkewMs !== undefined ? { clockSkewMs: agreed.right.clockSkewMs } : {}) } }
            : {}
          // --metrics-addr: the generator's metrics served while it runs (../LiveMetrics.ts)
          const live = i.metricsAddr === undefined ? undefined : yield* Effect.either(serveLiveMetrics(i.metricsAddr, hostOf(target.identity.url)))
          if (live !== undefined && Either.isLeft(live)) return Either.left(new Refused({ line: `clustersim: ${live.left.message}\n` }))
          if (live !== undefined) err(`metrics: ${live.right.url}\n`)
          // the target's own latency around each load phase (the agents' requests in the phase count in too)
          const server = scenario.phases.length > 0 ? yield* serverSideReaderFor(i.serverSide, i.target, target, err) : undefined
          const phaseHooks = server ? { phaseHooks: { started: server.phaseStarted, ended: server.phaseEnded } } : {}
          // the load phases against the same target, beside the agents (as the load runner runs them)
          const phases = segmented
            ? runScenario(scenario, { seed: i.seed, admin: target.admin, state, runTag: runTagOf(i.seed, state.startedAtMs), ...credentials, ...phaseHooks, parts: "phases", segment: own })
            : runScenario(scenario, { seed: i.seed, admin: target.admin, state, ...phaseHooks })
          const workload =
            scenario.phases.length > 0
              ? yield* Effect.forkScoped(Effect.exit(live === undefined ? phases.pipe(Effect.provideService(LatencyRecorder, recorder)) : live.right.instrument(phases, recorder)))
              : undefined
          const signal = yield* Effect.forkScoped(i.interrupt)
          // the cluster's informers (observer feed, scheduler) follow the scenario's client gate too
          const exit = yield* Effect.exit(
            withClientGates(scenario)(runRealTimeCluster({
              spec,
              faults: simulation.faults,
              seed: i.seed,
              durationMs: simulation.durationMs,
              ...(simulation.baseDir !== undefined ? { baseDir: simulation.baseDir } : {}),
              cleanup: i.cleanup,
              admin: target.admin,
              ...(scheduler ? { scheduler } : {}),
              ...(segmented ? { segment: own, ...(startAtMs !== undefined ? { originMs: startAtMs } : {}) } : {}),
              stop: Effect.asVoid(Fiber.join(signal)),
              onProgress: (p) =>
                err(
                  progressLine({
                    doneMs: p.elapsedMs,
                    totalMs: simulation.durationMs,
                    wallMs: p.elapsedMs,
                    clock: "real",
                    detail: `${p.registered} nodes registered · ${p.leaseWrites} lease writes · ${p.errors} failed requests`
                  }) + "\n"
                )
            }))
          )
          const base = { target: target.identity, clock: "real" as const, recorder, state, ...(server ? { server: yield* server.report } : {}), ...place }
          if (Exit.isFailure(exit)) return Either.right({ ...base, error: exit.cause })
          const result = exit.value
          reportLeftovers(result, i.cleanup, err)
          if (result.realTime.driver.saturated) err(`clustersim: the driver was saturated (${result.realTime.driver.reasons.join("; ")}): its figures measure it, not the server\n`)
          const stopped = yield* finished(signal)
          const workloadExit = workload === undefined ? undefined : yield* finished(workload)
          const ended = stopped !== undefined ? { stopped } : workloadExit !== undefined && Exit.isFailure(workloadExit) ? { error: workloadExit.cause } : {}
          return Either.right({
            ...base,
            health: result.realTime.driver,
            cluster: clusterOf(result),
            checks: agentChecks(result),
            ...(Object.keys(result.sections).length > 0 ? { sections: result.sections } : {}),
            ...ended
          })
        })
      )
    })
}

/** What a forked fiber succeeded with, once it has. */
const finished = <A, E>(fiber: Fiber.Fiber<A, E>): Effect.Effect<A | undefined> =>
  Effect.map(Fiber.poll(fiber), (o) => (Option.isSome(o) && Exit.isSuccess(o.value) ? o.value.value : undefined))

/** The artifact's `cluster`: the result without its sections, which the artifact carries as in virtual time. */
const clusterOf = ({ sections: _sections, ...cluster }: RealTimeClusterResult): DriverCluster => cluster

/** Says what the run left on the target (without `--cleanup`) and how to remove it. */
const reportLeftovers = (r: RealTimeClusterResult, cleanup: boolean, err: (s: string) => void): void => {
  const c = r.realTime.cleanup
  if (c.error !== undefined) err(`clustersim: could not ${cleanup ? "clean up" : "count what is left"}: ${c.error}\n`)
  const { nodes, leases, pods } = c.left
  if (nodes + leases + pods === 0) return
  err(
    `clustersim: left on the target: ${nodes} nodes, ${leases} node leases, ${pods} pods (label ${ownedSelector}); ` +
      `the next run adopts them, --cleanup deletes them at its end, or: kubectl delete nodes -l ${ownedSelector}\n`
  )
}
