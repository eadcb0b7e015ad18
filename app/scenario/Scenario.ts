/**
 * The scenario file (`apiVersion: clustersim/v1`, `kind: Scenario`): setup, load phases, failure steps,
 * thresholds, and optionally a simulated `cluster` with timed `faults` (their schemas belong to the
 * cluster simulator and are embedded as they are). Documented field by field in `docs/scenarios.md`.
 *
 * Every struct is decoded with `onExcessProperty: "error"`, so a misspelt field is an error, not a no-op.
 */
import { Either, Schema } from "effect"
import { ClusterFault, ClusterSpec } from "../../simulator/cluster/ClusterSpec.js"
import { EvictionSection } from "../../simulator/nodeagent/eviction/EvictionScenario.js"
import { SchedulerSection } from "../../simulator/scheduler/SchedulerScenario.js"
import { DurationString, durationMillis } from "../../src/api/go/Schemas.js"
import { resolveResource } from "../../src/api/Resources.js"
import { closestMatch } from "../../src/loadgen/SeriesPattern.js"
import { thresholdMetricNames, thresholdProblems } from "../../src/loadgen/Thresholds.js"
import { defaultFeatureGates, setFromMap } from "../../src/api/FeatureGates.js"

export { DurationString }

// ---------------------------------------------------------------------------------------------
// Scalars
// ---------------------------------------------------------------------------------------------

/** A resource by any name kubectl accepts: plural, singular, short name or kind. */
export const ResourceName = Schema.String.pipe(
  Schema.filter((s) => (resolveResource(s) ? undefined : `unknown resource "${s}"`)),
  Schema.annotations({ identifier: "Resource", description: "configmaps, pods, nodes, services, … (plural, singular, short name or kind)" })
)

/**
 * Upper bounds of the load a scenario may ask for (docs/scenarios.md "Bounds", with the reasons). Each is well
 * above what one generator process can drive; past it a typo (`count: 1e12`, `rate: 1e9`) would exhaust memory or
 * run for ever instead of failing `validate`.
 */
export const LoadBounds = {
  /** Objects per setup set: 1,000,000 config maps of 1 KiB are ~1 GiB in the simulated store. */
  objects: 1_000_000,
  /** Requests per second of one action, and creates per second of one setup set. */
  rate: 100_000,
  /** Closed-loop workers, setup concurrency, watchers and informers of one action, `maxInFlight`. */
  concurrency: 10_000,
  /** `maxInFlight` of an open-model action. */
  inFlight: 100_000,
  /** Iterations of a closed-loop action; `repeat` of a slow pager. */
  iterations: 100_000_000,
  /** A list's page size (upstream serves at most what is stored; 100,000 is far past any client's default of 500). */
  pageSize: 100_000
} as const

const boundedInt = (min: number, max: number) => Schema.Int.pipe(Schema.between(min, max))
const Rate = Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThanOrEqualTo(LoadBounds.rate))


// ---------------------------------------------------------------------------------------------
// Setup
// ---------------------------------------------------------------------------------------------

export const ObjectSet = Schema.Struct({
  /** How actions refer to this set (`objects: <name>`). */
  name: Schema.String,
  resource: ResourceName,
  /** Namespace for namespaced resources; default `default`. */
  namespace: Schema.optional(Schema.String),
  count: boundedInt(0, LoadBounds.objects),
  /** Object names are `<namePrefix><i>`; default `<set name>-`. */
  namePrefix: Schema.optional(Schema.String),
  /** Creates per second; default: as fast as `concurrency` allows. */
  rate: Schema.optional(Rate),
  /** Creates in flight; default 16. */
  concurrency: Schema.optional(boundedInt(1, LoadBounds.concurrency)),
  /** The object body without `metadata.name` (and `metadata.namespace`), e.g. `{ data: { k: v } }`. */
  template: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
}).annotations({ identifier: "ObjectSet" })
export type ObjectSet = typeof ObjectSet.Type

export const Setup = Schema.Struct({
  namespaces: Schema.optional(Schema.Array(Schema.String)),
  objects: Schema.optional(Schema.Array(ObjectSet))
}).annotations({ identifier: "Setup" })
export type Setup = typeof Setup.Type

// ---------------------------------------------------------------------------------------------
// Requests made by load actions
// ---------------------------------------------------------------------------------------------

export const Verb = Schema.Literal("get", "list", "create", "update", "patch", "delete", "churn")
export type Verb = typeof Verb.Type

export const Request = Schema.Struct({
  verb: Verb,
  /** Resource; may be omitted when `objects` names a setup set. */
  resource: Schema.optional(ResourceName),
  namespace: Schema.optional(Schema.String),
  /** get / update / patch / delete: a random object of this setup set (seeded). */
  objects: Schema.optional(Schema.String),
  /** get / update / patch / delete of one named object instead. */
  name: Schema.optional(Schema.String),
  /** list: page size; every page is requested, the whole list is one sample. */
  limit: Schema.optional(boundedInt(1, LoadBounds.pageSize)),
  /** list / get: passed as given ("0" = from the watch cache, "" = quorum read). */
  resourceVersion: Schema.optional(Schema.String),
  resourceVersionMatch: Schema.optional(Schema.Literal("Exact", "NotOlderThan")),
  labelSelector: Schema.optional(Schema.String),
  fieldSelector: Schema.optional(Schema.String),
  /** create / churn: body of new objects (names are generated). */
  template: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  /** churn: objects kept alive; iteration i creates one and deletes the one from i − keep. Default 10. */
  keep: Schema.optional(boundedInt(1, LoadBounds.objects)),
  /**
   * The wire encoding over HTTP: `json` (default) or `protobuf` (the envelope real components use; answers fall back
   * to JSON where the server has no protobuf form). The action's bytes in and out are reported with it.
   */
  encoding: Schema.optional(Schema.Literal("json", "protobuf"))
}).annotations({ identifier: "Request" })
export type Request = typeof Request.Type

// ---------------------------------------------------------------------------------------------
// Actions
// ---------------------------------------------------------------------------------------------

const common = {
  /** Label for progress and report; default `<type>-<index>`. */
  name: Schema.optional(Schema.String)
}

/** The unit an open model's rates count in: `0s` would plan every iteration at once, for ever. */
const TimeUnit = DurationString.pipe(Schema.filter((s) => (durationMillis(s) > 0 ? undefined : "must be greater than 0")))

/** Default `timeUnit` of an open-model action, ms. */
export const DefaultTimeUnitMs = 1000

const openModel = {
  /** Concurrency cap; a planned start that finds this many running is counted as dropped. Default 100. */
  maxInFlight: Schema.optional(boundedInt(1, LoadBounds.inFlight)),
  /** Rates are per this unit; default 1s. `LoadBounds.rate` bounds the rate per second whatever the unit. */
  timeUnit: Schema.optional(TimeUnit),
  request: Request
}

export const ConstantArrivalRate = Schema.Struct({
  type: Schema.Literal("constant-arrival-rate"),
  ...common,
  rate: Rate,
  /** Default: the phase duration. */
  duration: Schema.optional(DurationString),
  ...openModel
}).annotations({ identifier: "ConstantArrivalRate" })

export const RampStage = Schema.Struct({ target: Schema.Number.pipe(Schema.between(0, LoadBounds.rate)), duration: DurationString })

export const RampingArrivalRate = Schema.Struct({
  type: Schema.Literal("ramping-arrival-rate"),
  ...common,
  startRate: Schema.optional(Schema.Number.pipe(Schema.between(0, LoadBounds.rate))),
  stages: Schema.NonEmptyArray(RampStage),
  ...openModel
}).annotations({ identifier: "RampingArrivalRate" })

export const Closed = Schema.Struct({
  type: Schema.Literal("closed"),
  ...common,
  workers: boundedInt(1, LoadBounds.concurrency),
  /** Total iterations shared by the workers; default: run for the phase duration. */
  iterations: Schema.optional(boundedInt(0, LoadBounds.iterations)),
  duration: Schema.optional(DurationString),
  request: Request
}).annotations({ identifier: "Closed" })

export const Watch = Schema.Struct({
  type: Schema.Literal("watch"),
  ...common,
  resource: ResourceName,
  namespace: Schema.optional(Schema.String),
  labelSelector: Schema.optional(Schema.String),
  /** Number of concurrent watchers. */
  count: boundedInt(1, LoadBounds.concurrency)
}).annotations({ identifier: "Watch" })

export const Informers = Schema.Struct({
  type: Schema.Literal("informers"),
  ...common,
  resource: ResourceName,
  namespace: Schema.optional(Schema.String),
  labelSelector: Schema.optional(Schema.String),
  /** Number of reflectors (each lists and watches on its own). */
  count: boundedInt(1, LoadBounds.concurrency),
  /** Initial list page size; default 500 (client-go). */
  pageSize: Schema.optional(boundedInt(1, LoadBounds.pageSize)),
  /**
   * Sync by streaming the state through a watch (WatchList, docs/watchlist.md), falling back to LIST when refused;
   * default: the scenario's `clientFeatureGates.WatchListClient`.
   */
  watchList: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "Informers" })

const at = {
  /** Offset from the phase start; default 0. */
  at: Schema.optional(DurationString)
}

export const Compact = Schema.Struct({ type: Schema.Literal("compact"), ...common, ...at }).annotations({ identifier: "Compact" })
export const DropWatches = Schema.Struct({ type: Schema.Literal("drop-watches"), ...common, ...at }).annotations({ identifier: "DropWatches" })
export const Pause = Schema.Struct({ type: Schema.Literal("pause"), ...common, ...at, for: DurationString }).annotations({ identifier: "Pause" })

/** A slow pager: lists page 1, waits `pageDelay` (optionally compacting), then follows the token (→ 410). */
export const ExpireContinueToken = Schema.Struct({
  type: Schema.Literal("expire-continue-token"),
  ...common,
  ...at,
  resource: ResourceName,
  namespace: Schema.optional(Schema.String),
  /** Page size; default 50. */
  limit: Schema.optional(boundedInt(1, LoadBounds.pageSize)),
  /** Time between pages; make it longer than the server's history window. */
  pageDelay: DurationString,
  /** Compact the simulated server during the delay (needs the admin hooks). Default false. */
  compact: Schema.optional(Schema.Boolean),
  /** Repeat the slow pagination this many times; default 1. */
  repeat: Schema.optional(boundedInt(1, LoadBounds.iterations))
}).annotations({ identifier: "ExpireContinueToken" })

/**
 * Tokens expire at `at` (docs/scenarios.md "Expired tokens"). `side: server`: every token the simulated server
 * issued expires (needs its admin hooks); `side: client` (default): the credential the generator's client holds
 * is swapped for one the server refuses, on any target; the client recovers as client-go would.
 */
export const ExpireTokens = Schema.Struct({
  type: Schema.Literal("expire-tokens"),
  ...common,
  ...at,
  side: Schema.optional(Schema.Literal("server", "client")),
  /**
   * Right after the expiry, close every watch (a control-plane restart with a new signing key), so informers must
   * list and watch again with the expired token; needs the admin hooks. Default false.
   */
  dropWatches: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "ExpireTokens" })

/** An RFC 3339 time (`2026-01-01T10:00:00Z`) or an offset from the log's first request (`10m`). */
const LogTime = Schema.String.pipe(
  Schema.filter((t) => (Number.isFinite(Date.parse(t)) || durationOk(t) ? undefined : `expected an RFC 3339 time or a duration from the log's first request, got "${t}"`)),
  Schema.annotations({ identifier: "LogTime" })
)
const durationOk = (t: string): boolean => Schema.is(DurationString)(t)

/**
 * Replays `audit.k8s.io/v1` audit logs against the target (docs/replay.md): every kept request at its recorded
 * offset over `speed`, after seeding what the log assumes exists.
 */
export const Replay = Schema.Struct({
  type: Schema.Literal("replay"),
  ...common,
  /** Log files, in order (rotated files oldest first); gzip recognised by content. */
  logs: Schema.NonEmptyArray(Schema.String),
  /** Time compression; default 1. */
  speed: Schema.optional(Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThanOrEqualTo(10_000))),
  /** Copies of the traffic in as many namespace copies, spread over the same time; default 1. */
  scale: Schema.optional(boundedInt(1, 1000)),
  /** Namespaces become `<prefix>-<namespace>`. */
  namespacePrefix: Schema.optional(Schema.String.pipe(Schema.pattern(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { message: () => "must be a DNS label: lower-case letters, digits and '-'" }))),
  /** Send each request as its recorded user and groups (`Impersonate-User`, `Impersonate-Group`); default false. */
  impersonate: Schema.optional(Schema.Boolean),
  /** Create the objects and namespaces the log assumes before replaying it; default true. */
  seed: Schema.optional(Schema.Boolean),
  users: Schema.optional(Schema.Array(Schema.String)),
  verbs: Schema.optional(Schema.Array(Schema.String)),
  resources: Schema.optional(Schema.Array(Schema.String)),
  namespaces: Schema.optional(Schema.Array(Schema.String)),
  from: Schema.optional(LogTime),
  to: Schema.optional(LogTime),
  /** Replay the log again until the phase ends. */
  loop: Schema.optional(Schema.Boolean),
  /** How far out of order the log may be (log time); default 10s. */
  reorderWindow: Schema.optional(DurationString),
  /** Requests in flight besides long-running ones; default 10000. */
  maxInFlight: Schema.optional(boundedInt(1, LoadBounds.inFlight)),
  /** Send recorded resourceVersion and continue query values unchanged; default false (docs/replay.md). */
  keepResourceVersions: Schema.optional(Schema.Boolean),
  /** Replay against a target that is not a loopback address; default false (a log replays its deletes). */
  allowRemote: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "Replay" })

export const Action = Schema.Union(
  ConstantArrivalRate,
  RampingArrivalRate,
  Closed,
  Watch,
  Informers,
  Compact,
  DropWatches,
  Pause,
  ExpireContinueToken,
  ExpireTokens,
  Replay
).annotations({ identifier: "Action" })
export type Action = typeof Action.Type

/** An action's name in progress, reports and series tags: its own, or `<type>-<index in its phase>`. */
export const actionName = (a: Action, index: number): string => a.name ?? `${a.type}-${index}`

/** Failure steps that need the simulated server's admin hooks. */
export const serverSideFailures: ReadonlyArray<Action["type"]> = ["compact", "drop-watches", "pause"]

export const Phase = Schema.Struct({
  name: Schema.String,
  duration: DurationString,
  actions: Schema.Array(Action)
}).annotations({ identifier: "Phase" })
export type Phase = typeof Phase.Type

// ---------------------------------------------------------------------------------------------
// Thresholds
// ---------------------------------------------------------------------------------------------

/** k6's object form of an expression; `allowNoData: true` lets it pass when nothing was measured (default: fail). */
const ThresholdObject = Schema.Struct({
  threshold: Schema.String,
  allowNoData: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "ThresholdObject" })
const ThresholdExpression = Schema.Union(Schema.String, ThresholdObject)
const ThresholdExpressions = Schema.Union(ThresholdExpression, Schema.Array(ThresholdExpression))

/** Every threshold's problems at once, each at its expression (`thresholds["x"][1]`), a misspelt metric with its closest. */
export const Thresholds = Schema.Record({ key: Schema.String, value: ThresholdExpressions }).pipe(
  Schema.filter((spec) =>
    Object.entries(spec).flatMap(([name, exprs]) =>
      thresholdProblems(name, exprs).map((p) => {
        const near = p.error.reason.startsWith("unknown metric") ? closestMatch(p.error.token, thresholdMetricNames) : undefined
        return { path: [name, ...p.at], message: near !== undefined ? `${p.error.message}; did you mean "${near}"?` : p.error.message }
      })
    )
  )
)

export const Preset = Schema.Literal("slo", "slo-legacy", "server-slo", "server-slo-legacy").annotations({
  description:
    "slo: the official API-call SLOs (mutating 1s, GET 1s, LIST namespace/cluster 30s); slo-legacy: namespace LIST 5s; server-slo, server-slo-legacy: the same on a real target's own histograms (ClusterLoader2's API responsiveness)"
})

// ---------------------------------------------------------------------------------------------
// Scenario
// ---------------------------------------------------------------------------------------------

/** The simulated server's feature gates, as `serve --feature-gates` takes them (`WatchList: true`); upstream's errors. */
export const ServerFeatureGates = Schema.Record({ key: Schema.String, value: Schema.Boolean }).pipe(
  Schema.filter((gates) => {
    const set = setFromMap(defaultFeatureGates, gates)
    return Either.isLeft(set) ? set.left.message : undefined
  }),
  Schema.annotations({ identifier: "ServerFeatureGates", description: "kube-apiserver feature gates of the simulated server: WatchList: true streams a watch's initial state (docs/watchlist.md)" })
)

/** Settings of the simulated API server (embedded and in-process targets only). */
export const ServerSettings = Schema.Struct({
  historyWindow: Schema.optional(DurationString),
  bookmarkInterval: Schema.optional(DurationString),
  watchBufferSize: Schema.optional(boundedInt(1, LoadBounds.objects)),
  featureGates: Schema.optional(ServerFeatureGates)
}).annotations({ identifier: "ServerSettings" })

/**
 * client-go's feature gates for every client of the run (`KUBE_FEATURE_<gate>`): `WatchListClient: true` makes the
 * informers that do not choose themselves — the simulated control plane's and the `informers` actions' — sync by a
 * WatchList stream, falling back to LIST + WATCH where the server refuses it (docs/watchlist.md).
 */
export const ClientFeatureGates = Schema.Struct({
  WatchListClient: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "ClientFeatureGates" })

/** The load generator itself (docs/scenarios.md "Workers"). */
export const GeneratorSettings = Schema.Struct({
  /**
   * Generator processes sharing every action's rate (k6 execution segments); `--workers` overrides. Default: what
   * the machine fits — its cores, less one for an embedded server.
   */
  workers: Schema.optional(boundedInt(1, 64)),
  /** Where the segments of a distributed run agree on their start (`run --rendezvous ID`, docs/distributed.md). */
  rendezvous: Schema.optional(
    Schema.Struct({
      /** The namespace of the rendezvous ConfigMap (default `default`). */
      namespace: Schema.optional(Schema.String),
      /** From the last segment's registration to the start (default 5s). */
      margin: Schema.optional(DurationString),
      /** How long a segment waits for the others (default 2m). */
      timeout: Schema.optional(DurationString)
    }).annotations({ identifier: "Rendezvous" })
  )
}).annotations({ identifier: "GeneratorSettings" })

/**
 * What a run must show besides its thresholds to pass (docs/scenarios.md "Honest outcomes"). The defaults
 * fail runs that mostly failed; loosening one is an explicit opt-out written in the scenario.
 */
export const OutcomeRules = Schema.Struct({
  /** Largest error rate per metric (`errors{metric:*}`) unless the scenario has its own `errors` threshold; default 0.1. */
  maxErrorRate: Schema.optional(Schema.Number.pipe(Schema.between(0, 1))),
  /** Every informer must sync at least once; default true. */
  requireInformerSync: Schema.optional(Schema.Boolean),
  /** At least one request must succeed when any failed; default true. */
  requireSuccess: Schema.optional(Schema.Boolean),
  /** Every setup create must succeed (an object that exists already counts as created); default true. */
  requireSetup: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "OutcomeRules" })

/**
 * The sections that run in virtual time, all in one simulation (`app/scenario/Simulated.ts`; docs/scenarios.md
 * "One simulation"). A new section is one field here and one entry in `Simulated.ts`'s `simulatedSections`.
 */
export const SimulatedSections = {
  /** A simulated cluster: node agents, the node lifecycle controller (docs/cluster.md). */
  cluster: Schema.optional(ClusterSpec),
  /** Timed faults of the simulated cluster. */
  faults: Schema.optional(Schema.Array(ClusterFault)),
  /** Scheduler replicas under leader election placing pod batches (docs/scheduler.md). */
  scheduler: Schema.optional(SchedulerSection),
  /** One node's eviction manager under a usage model (docs/scheduler.md). */
  eviction: Schema.optional(EvictionSection)
}

export const Metadata = Schema.Struct({
  name: Schema.String.pipe(Schema.pattern(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, { message: () => "must be lower-case letters, digits, '-' or '.'" })),
  description: Schema.optional(Schema.String)
})

export const Scenario = Schema.Struct({
  apiVersion: Schema.Literal("clustersim/v1"),
  kind: Schema.Literal("Scenario"),
  metadata: Metadata,
  /** Seed for every random choice (object picks, simulated server); `--seed` overrides. Default 1. */
  seed: Schema.optional(Schema.Int),
  /** Upper bound on the whole run (phases are cut at it); the simulated time for `cluster` scenarios. */
  duration: Schema.optional(DurationString),
  server: Schema.optional(ServerSettings),
  clientFeatureGates: Schema.optional(ClientFeatureGates),
  generator: Schema.optional(GeneratorSettings),
  setup: Schema.optional(Setup),
  phases: Schema.Array(Phase),
  ...SimulatedSections,
  /** k6-style: `"latency{operation:GET}": ["p(99) < 1s"]`; `{threshold: "p(99) < 1s", allowNoData: true}` passes on no data. */
  thresholds: Schema.optional(Thresholds),
  presets: Schema.optional(Schema.Array(Preset)),
  outcome: Schema.optional(OutcomeRules)
}).annotations({ identifier: "Scenario", title: "clustersim scenario" })
export type Scenario = typeof Scenario.Type
export type ScenarioEncoded = typeof Scenario.Encoded
