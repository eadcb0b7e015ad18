/**
 * `clustersim serve --nodes N | --cluster scenario.yaml | --demo`: a live cluster in the server's process (docs/serve.md).
 * The real-time cluster of `run --target` (simulator/cluster/RealTimeCluster.ts: node agents registering Nodes and
 * renewing Leases, the node lifecycle controller and the scheduler, each under leader election, their events) runs
 * against the server through an in-process client, with kube-controller-manager's part (the Deployment and
 * ReplicaSet controllers, the garbage collector of their dependents, the service accounts controller; under leader
 * election on `clustersim-controller-manager` as kube-controller-manager's are) and the kubelet's container events
 * (simulator/cluster/ContainerEvents.ts). It runs until the server stops; nothing is cleaned up, since the server's
 * state goes with it.
 */
import { Cause, Effect, Either, Option, Schema } from "effect"
import { readFileSync } from "node:fs"
import { dirname } from "node:path"
import { hostname } from "node:os"
import { ApiServer, type ApiServerImpl } from "../../simulator/apiserver/ApiServer.js"
import { auditObserver } from "../../simulator/apiserver/audit/AuditedClient.js"
import { Audit, type Auditor } from "../../simulator/apiserver/audit/Auditor.js"
import type { Credentials } from "../../simulator/apiserver/auth/Authenticator.js"
import type { UserInfo } from "../../simulator/apiserver/auth/UserInfo.js"
import { nodeControllerUserName, schedulerUserName } from "../../simulator/apiserver/auth/BootstrapPolicy.js"
import * as InProcessClient from "../../simulator/apiserver/InProcessClient.js"
import { observeBoth, observedClient, type CallObserver } from "../../simulator/apiserver/ObservedClient.js"
import { recordContainerEvents } from "../../simulator/cluster/ContainerEvents.js"
import { ClusterBounds, decodeClusterSpec, type ClusterFault, type ClusterSpec } from "../../simulator/cluster/ClusterSpec.js"
import { realTimeProblems, runRealTimeCluster } from "../../simulator/cluster/RealTimeCluster.js"
import { startServiceAccountsController } from "../../simulator/controllers/serviceaccount/ServiceAccountsController.js"
import { startWorkloadControllers } from "../../simulator/controllers/WorkloadControllers.js"
import * as SeededRandom from "../../simulator/kernel/SeededRandom.js"
import * as LeaderElector from "../../simulator/leaderelection/LeaderElector.js"
import { SchedulerSection } from "../../simulator/scheduler/SchedulerScenario.js"
import { systemNamespace } from "../../src/api/WellKnown.js"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import { ServerAdmin } from "../../src/client/ServerAdmin.js"
import { parseScenario } from "../scenario/load.js"

export interface LiveClusterPlan {
  readonly spec: ClusterSpec
  readonly faults: ReadonlyArray<ClusterFault>
  readonly baseDir?: string
  /** What it runs, for stderr. */
  readonly source: string
}

/** The cluster `serve --nodes N` runs: N nodes of 8 cores and 32 GiB, started within 2 s, node lifecycle on. */
export const nodesPlan = (nodes: number): Either.Either<LiveClusterPlan, string> =>
  Either.mapBoth(decodeClusterSpec({ nodes, startSpread: "2s", shape: { cpu: "8", memory: "32Gi" } }), {
    onLeft: (e) => `--nodes: ${String(e.message).split("\n").at(-1)}`,
    onRight: (spec) => ({ spec, faults: [], source: `--nodes ${nodes}` })
  })

/** The `cluster:` section (and timed `faults:`, counted from the start) of a scenario file, checked as `run` checks it. */
export const scenarioPlan = (file: string): Either.Either<LiveClusterPlan, string> => {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (e) {
    return Either.left(`--cluster: cannot read ${file}: ${(e as Error).message}`)
  }
  const loaded = parseScenario(text, file)
  if (Either.isLeft(loaded)) return Either.left(loaded.left.message)
  const scenario = loaded.right.scenario
  if (scenario.cluster === undefined) return Either.left(`--cluster: ${file} has no "cluster" section`)
  const faults = scenario.faults ?? []
  const problems = realTimeProblems(scenario.cluster, faults, true)
  if (problems.length > 0) return Either.left(`--cluster: ${file}: ${problems.join("; ")}`)
  return Either.right({ spec: scenario.cluster, faults, baseDir: dirname(file), source: `the cluster section of ${file}` })
}

/** The live cluster of `--nodes`, `--cluster` or `--demo` (one at most), or none; `Left` is the usage error. */
export const livePlan = (o: { readonly demo: boolean; readonly nodes: Option.Option<number>; readonly cluster: Option.Option<string> }): Either.Either<LiveClusterPlan, string> | undefined => {
  const asked = [o.demo && "--demo", Option.isSome(o.nodes) && "--nodes", Option.isSome(o.cluster) && "--cluster"].filter((x): x is string => typeof x === "string")
  if (asked.length > 1) return Either.left(`${asked.join(" and ")}: give one of them`)
  if (Option.isSome(o.nodes)) {
    const n = o.nodes.value
    if (n < 1 || n > ClusterBounds.nodes) return Either.left(`--nodes: must be between 1 and ${ClusterBounds.nodes}, got ${n}`)
    return nodesPlan(n)
  }
  if (Option.isSome(o.cluster)) return scenarioPlan(o.cluster.value)
  return o.demo ? Either.map(nodesPlan(3), (p) => ({ ...p, source: "--demo" })) : undefined
}

/**
 * The identity of what has no component identity of its own: the cluster's observer (its informers), the pods it
 * creates, the container events it records — a member of system:masters.
 */
const componentCredentials: Credentials = { clientCertificate: { commonName: "clustersim:live-cluster", organizations: ["system:masters"], verified: true } }

/**
 * The workload controllers' identity: kube-controller-manager's user, in system:masters so the controllers keep the
 * permissions they need without a bootstrap role for each (upstream binds `system:kube-controller-manager` and, with
 * `--use-service-account-credentials`, one service account per controller).
 */
const controllerManagerCredentials: Credentials = { clientCertificate: { commonName: "system:kube-controller-manager", organizations: ["system:masters"], verified: true } }

/** The User-Agent an in-process component's audited requests carry, by its user. */
const userAgentOf = (user: string): string =>
  user.startsWith("system:node:")
    ? "clustersim/node-agent"
    : user === schedulerUserName
      ? "clustersim/scheduler"
      : user === nodeControllerUserName
        ? "clustersim/node-lifecycle-controller"
        : user === "system:kube-controller-manager"
          ? "clustersim/controller-manager"
          : "clustersim/live-cluster"

/**
 * A client as one component's identity (authenticated and authorized as that user), its requests audited when the
 * server audits (docs/audit.md) and counted in the HTTP server's `/metrics` as the same requests over HTTP would be
 * (`metered`, docs/metrics.md).
 */
const componentClient =
  (server: ApiServerImpl, audit: Auditor | undefined, metered: ((user: UserInfo) => CallObserver) | undefined) =>
  (credentials: Credentials): ApiClientService => {
    const client = InProcessClient.inProcessClient(server, credentials)
    const user = server.access.authenticate(credentials, 0)
    if (Either.isLeft(user)) return client
    const audited = audit === undefined ? undefined : auditObserver(audit, server.access, user.right, userAgentOf(user.right.name))
    const counted = metered?.(user.right)
    const observer = audited !== undefined && counted !== undefined ? observeBoth(audited, counted) : (audited ?? counted)
    return observer === undefined ? client : observedClient(observer, client)
  }

/** Longer than any server runs: the cluster's "duration" (timers this long never fire). */
const untilStopped = 100 * 365 * 86_400_000

/** kube-controller-manager's election timings (15 s lease, 10 s deadline, 2 s retry). */
const controllerManagerElection = { namespace: systemNamespace, name: "clustersim-controller-manager", leaseDuration: 15_000, renewDeadline: 10_000, retryPeriod: 2_000, releaseOnCancel: true } as const

/** A line for stderr saying what runs. */
export const describePlan = (plan: LiveClusterPlan): string => {
  const lifecycle = plan.spec.nodeLifecycle?.enabled === false ? "" : ", node lifecycle controller"
  const faults = plan.faults.length > 0 ? `, ${plan.faults.length} timed fault(s)` : ""
  return (
    `clustersim: live cluster (${plan.source}): ${plan.spec.nodes} simulated nodes (node agents: registration, leases, pod start-up, container logs)` +
    `${lifecycle}, scheduler, deployment, replicaset and service account controllers, garbage collector, events; each controller under leader election${faults}`
  )
}

/**
 * Runs the plan's cluster against the server of the context until interrupted; failures go to `err`. Its calls are
 * told to `metered` (the HTTP server's `inProcessCalls`), which counts them in `/metrics`.
 */
export const runLiveCluster = (
  plan: LiveClusterPlan,
  seed: number,
  err: (line: string) => void,
  metered?: (user: UserInfo) => CallObserver
): Effect.Effect<void, never, ApiServer> =>
  Effect.gen(function* () {
    const server = yield* ApiServer
    // every component under its own user (docs/serve.md), each audited when the server audits
    const clientAs = componentClient(server, Option.getOrUndefined(yield* Effect.serviceOption(Audit)), metered)
    const client = clientAs(componentCredentials)
    // the failure hooks a cluster's `apiserver-pause` fault calls, straight into this server
    const admin = yield* Effect.provide(ServerAdmin, InProcessClient.layerAdmin)
    const scheduler = { ...Schema.decodeUnknownSync(SchedulerSection)({ replicas: 1, leaderElect: true, batches: [] }), duration: untilStopped }
    const cluster = runRealTimeCluster({ spec: plan.spec, faults: plan.faults, seed, durationMs: untilStopped, ...(plan.baseDir ? { baseDir: plan.baseDir } : {}), cleanup: false, admin, scheduler, clientAs })
    const identity = `${hostname()}_${SeededRandom.make(seed).split("controller-manager").next().toString(36).slice(2, 10)}`
    const controllers = Effect.gen(function* () {
      const elector = yield* Effect.orDie(LeaderElector.make({ ...controllerManagerElection, identity }))
      const controllerManager = Effect.zipRight(startWorkloadControllers({ host: hostname() }), startServiceAccountsController)
      yield* Effect.forever(elector.run(Effect.scoped(Effect.zipRight(controllerManager, Effect.never))))
    }).pipe(Effect.provide(SeededRandom.layer(seed)), Effect.provideService(ApiClient, clientAs(controllerManagerCredentials)))
    const report = (what: string) => (cause: Cause.Cause<unknown>) => Effect.sync(() => Cause.isInterruptedOnly(cause) || err(`clustersim: the live cluster's ${what} stopped: ${Cause.pretty(cause).split("\n")[0]}`))
    yield* Effect.all(
      [
        Effect.catchAllCause(cluster, report("nodes and scheduler")),
        Effect.catchAllCause(controllers, report("controllers")),
        Effect.catchAllCause(Effect.scoped(Effect.zipRight(recordContainerEvents, Effect.never)), report("container events"))
      ],
      { concurrency: "unbounded", discard: true }
    ).pipe(Effect.provideService(ApiClient, client))
  })
