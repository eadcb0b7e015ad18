/**
 * One `platform-scheduler` process in the simulation, from its effective configuration (`effectiveConfiguration`
 * of the options): informers on every replica, the scheduling loop only while leading (when
 * `leaderElection.leaderElect`), events through a recorder named after the profile's scheduler.
 * The outcome mirrors the process exit: "lost" = `Leaderelection lost` (exit 1); interruption = requested stop.
 */
import { Effect, type Scope } from "effect"
import type { ApiClient } from "../../src/client/ApiClient.js"
import { make as makeRecorder, reportingInstanceOf } from "../events/EventRecorder.js"
import type { SeededRandom } from "../kernel/SeededRandom.js"
import * as LeaderElector from "../leaderelection/LeaderElector.js"
import type { SchedulerConfiguration } from "./options/index.js"
import { makeSchedulerCore, runInformers, runSchedulingLoop, type SchedulerCore, type SchedulerSettings } from "./Scheduler.js"

export interface SchedulerInstanceOptions {
  /** Host name: identity is `<host>_<uuid>`, reportingInstance `<scheduler>-<host>`. */
  readonly host: string
  readonly uuid: string
  /** `--pod-max-in-unschedulable-pods-duration` (ms), default 5 min. */
  readonly podMaxInUnschedulablePodsMs?: number
  readonly onBound?: SchedulerSettings["onBound"]
  /** Hands out the core (for stats) and the elector (to kill it) once built. */
  readonly onStarted?: (core: SchedulerCore, elector: LeaderElector.LeaderElector | undefined) => void
}

export const runSchedulerInstance = (
  config: SchedulerConfiguration,
  options: SchedulerInstanceOptions
): Effect.Effect<LeaderElector.RunOutcome, LeaderElector.LeaderElectionConfigError, ApiClient | SeededRandom | Scope.Scope> =>
  Effect.gen(function* () {
    const profile = config.profiles[0]
    const name = profile?.schedulerName ?? "default-scheduler"
    const recorder = yield* makeRecorder({ reportingController: name, reportingInstance: reportingInstanceOf(name, options.host) })
    const core = yield* makeSchedulerCore({
      schedulerName: name,
      percentageOfNodesToScore: profile?.percentageOfNodesToScore ?? config.percentageOfNodesToScore,
      podInitialBackoffMs: config.podInitialBackoffSeconds * 1000,
      podMaxBackoffMs: config.podMaxBackoffSeconds * 1000,
      ...(options.podMaxInUnschedulablePodsMs !== undefined ? { podMaxInUnschedulablePodsMs: options.podMaxInUnschedulablePodsMs } : {}),
      recorder,
      ...(options.onBound ? { onBound: options.onBound } : {})
    })
    yield* Effect.forkScoped(runInformers(core))
    const le = config.leaderElection
    if (!le.leaderElect) {
      options.onStarted?.(core, undefined)
      return yield* runSchedulingLoop(core)
    }
    const elector = yield* LeaderElector.make({
      namespace: le.resourceNamespace,
      name: le.resourceName,
      identity: `${options.host}_${options.uuid}`,
      leaseDuration: le.leaseDuration,
      renewDeadline: le.renewDeadline,
      retryPeriod: le.retryPeriod,
      releaseOnCancel: true,
      recorder
    })
    options.onStarted?.(core, elector)
    return yield* elector.run(runSchedulingLoop(core))
  })
