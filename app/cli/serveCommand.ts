/**
 * `clustersim serve`: the simulated API server on a real socket, optionally a live cluster (docs/serve.md). Its
 * modules are loaded when it runs (./CommandParts.ts `load`).
 */
import { Command, Options } from "@effect/cli"
import { Console, Effect, Either, Layer, Option } from "effect"
import { defaultFeatureGates, parseFeatureGatesFlag } from "../../src/api/FeatureGates.js"
import { durationFlag, integerFlag, load, optionalText, stderrLine, usageError, value } from "./CommandParts.js"
import { connectionCap, openFilesLimit, ownDescriptors } from "./DescriptorLimit.js"
import { FlagError, parseNonNegativeDurationFlag } from "./flags.js"
import { defaultsTo } from "./Help.js"
import { layerStderrLogger } from "./StderrLogger.js"

/** `serve --tls --kubeconfig-auth`'s choices (./serveTokenKubeconfig.ts writes the token one). */
const kubeconfigAuths = ["client-certificate", "token"] as const

const serveOptions = {
  host: Options.text("host").pipe(Options.withPseudoName("ADDRESS"), defaultsTo("127.0.0.1"), Options.withDescription("IP address to listen on; 0.0.0.0 for every interface.")),
  port: integerFlag("port", "TCP port to listen on; 0 picks a free one.").pipe(defaultsTo(6443)),
  seed: integerFlag("seed", "Seed of the server's random choices (uids, resource versions).").pipe(defaultsTo(1)),
  admin: Options.boolean("admin").pipe(
    Options.withDescription("Enable POST /clustersim/compact, /clustersim/drop-watches, /clustersim/pause?seconds=N (failure steps).")
  ),
  demo: Options.boolean("demo").pipe(Options.withDescription("A small live cluster: 3 simulated nodes (as --nodes 3) with a Deployment \"web\" of 3 pods and a config map.")),
  nodes: integerFlag("nodes", "Run a live cluster of N simulated nodes in this process: node agents (leases, pod start-up, logs), node lifecycle, scheduler, Deployment and ReplicaSet controllers, events (docs/serve.md).").pipe(Options.optional),
  cluster: optionalText("cluster", "Run a live cluster from the cluster section (and faults) of this scenario file, as --nodes does (docs/serve.md).", "FILE"),
  noMetrics: Options.boolean("no-metrics").pipe(
    Options.withDescription("Serve no /metrics and instrument nothing (the Prometheus metrics cost a few per cent of throughput; docs/metrics.md).")
  ),
  verbose: Options.boolean("verbose").pipe(
    Options.withAlias("v"),
    Options.withDescription('Log each request on stderr when answered, as kube-apiserver\'s httplog: verb, URI, latency, user, user agent, client address, status.')
  ),
  historyWindow: durationFlag("history-window", "5m", "How long watch history is kept before compaction; an older resourceVersion gets 410 Expired."),
  bookmarkInterval: durationFlag("bookmark-interval", "1m", "Time between BOOKMARK events on watches that ask for them."),
  requestTimeout: durationFlag(
    "request-timeout",
    "60s",
    "Non-watch requests not answered in this time get 504; 0 turns it off (the 32 s header timeout stays). See docs/limits.md."
  ),
  maxConnections: integerFlag(
    "max-connections",
    "Open connections; one more is answered 429 and closed. Lowered to the open-file limit less 64 (said on stderr). See docs/limits.md."
  ).pipe(defaultsTo(4096)),
  watchBufferSize: integerFlag(
    "watch-buffer-size",
    "Events buffered per watch before a slow watcher is dropped (default 1,000, as the scenario's server.watchBufferSize)."
  ).pipe(Options.optional),
  addedLatency: durationFlag("added-latency", "0s", "Wait this long before answering each request: a slower server or network, e.g. to try compare (docs/compare.md)."),
  tls: Options.boolean("tls").pipe(
    Options.withDescription("Serve HTTPS with a generated CA, serving certificate and admin client certificate; prints the kubeconfig path (docs/auth.md).")
  ),
  certDir: optionalText("cert-dir", "Where --tls writes its certificates and kubeconfig (default: a new temporary directory).", "DIR"),
  kubeconfigAuth: Options.text("kubeconfig-auth").pipe(
    Options.withPseudoName(kubeconfigAuths.join("|")),
    defaultsTo("client-certificate"),
    Options.withDescription(
      "With --tls: what the written kubeconfig's user authenticates with — the admin client certificate, or service-account tokens from an exec plugin, plus a token file (token: for scenarios that expire tokens; docs/auth.md)."
    )
  ),
  tlsCertFile: optionalText("tls-cert-file", "Serving certificate (PEM) for HTTPS, with --tls-private-key-file.", "FILE"),
  tlsPrivateKeyFile: optionalText("tls-private-key-file", "Private key (PEM) of --tls-cert-file.", "FILE"),
  clientCaFile: optionalText("client-ca-file", "Client certificates signed by this CA authenticate: user = CN, groups = O.", "FILE"),
  tokenAuthFile: optionalText("token-auth-file", 'Static bearer tokens, CSV lines token,user,uid,"group1,group2".', "FILE"),
  anonymousAuth: Options.text("anonymous-auth").pipe(
    Options.withPseudoName("true|false"),
    defaultsTo("true"),
    Options.withDescription("Requests without credentials are system:anonymous (true) or 401 (false).")
  ),
  authorizationMode: Options.text("authorization-mode").pipe(
    Options.withPseudoName("MODE"),
    defaultsTo("AlwaysAllow"),
    Options.withDescription("AlwaysAllow, or RBAC (roles and bindings; bootstrap roles such as cluster-admin for system:masters).")
  ),
  auditLogPath: optionalText(
    "audit-log-path",
    "Write the server's audit events there, one audit.k8s.io/v1 Event per line as kube-apiserver does; - for stdout (serve's own lines then go to stderr). Needs --audit-policy-file (docs/audit.md).",
    "FILE"
  ),
  auditPolicyFile: optionalText(
    "audit-policy-file",
    "The audit.k8s.io/v1 Policy (YAML or JSON) saying which requests are recorded at which level: None, Metadata, Request, RequestResponse (docs/audit.md).",
    "FILE"
  ),
  auditLogMaxSize: integerFlag("audit-log-maxsize", "Megabytes the audit log may reach before it is rotated to FILE-<time>.EXT; 0 is 100, as kube-apiserver.").pipe(defaultsTo(0)),
  auditLogMaxBackup: integerFlag("audit-log-maxbackup", "Rotated audit logs to keep; 0 keeps all.").pipe(defaultsTo(0)),
  auditLogMaxAge: integerFlag("audit-log-maxage", "Days a rotated audit log is kept; 0 keeps them whatever their age.").pipe(defaultsTo(0)),
  featureGates: Options.text("feature-gates").pipe(
    Options.withPseudoName("GATE=true|false,..."),
    Options.withDefault(""),
    Options.withDescription("Gates the server honours, as kube-apiserver's flag: WatchList=true streams a watch's initial state (sendInitialEvents; docs/watchlist.md). Default: none set (WatchList off).")
  )
}

const serveHandler = (o: {
  host: string
  port: number
  seed: number
  admin: boolean
  demo: boolean
  noMetrics: boolean
  verbose: boolean
  nodes: Option.Option<number>
  cluster: Option.Option<string>
  historyWindow: string
  bookmarkInterval: string
  requestTimeout: string
  maxConnections: number
  watchBufferSize: Option.Option<number>
  addedLatency: string
  tls: boolean
  certDir: Option.Option<string>
  kubeconfigAuth: string
  tlsCertFile: Option.Option<string>
  tlsPrivateKeyFile: Option.Option<string>
  clientCaFile: Option.Option<string>
  tokenAuthFile: Option.Option<string>
  anonymousAuth: string
  authorizationMode: string
  auditLogPath: Option.Option<string>
  auditPolicyFile: Option.Option<string>
  auditLogMaxSize: number
  auditLogMaxBackup: number
  auditLogMaxAge: number
  featureGates: string
}) =>
  Effect.gen(function* () {
    const { livePlan, describePlan, runLiveCluster } = yield* load(() => import("./serveCluster.js"))
    const { openAccessWarning, resolveServeSecurity } = yield* load(() => import("./serveSecurity.js"))
    const { writeTokenKubeconfig } = yield* load(() => import("./serveTokenKubeconfig.js"))
    const { ApiServer } = yield* load(() => import("../../simulator/apiserver/ApiServer.js"))
    const { runHttpServer } = yield* load(() => import("../../simulator/apiserver/HttpServer.js"))
    const { writeKubeconfig } = yield* load(() => import("../../simulator/apiserver/auth/Certificates.js"))
    const { seedDemoCluster } = yield* load(() => import("./demo.js"))
    const { resolveAudit } = yield* load(() => import("./serveAudit.js"))
    if (o.port < 0 || o.port > 65535) return yield* usageError(`--port: invalid port "${o.port}"`)
    const historyWindowMs = yield* parseNonNegativeDurationFlag("--history-window", o.historyWindow)
    const bookmarkIntervalMs = yield* parseNonNegativeDurationFlag("--bookmark-interval", o.bookmarkInterval)
    const requestTimeoutMs = yield* parseNonNegativeDurationFlag("--request-timeout", o.requestTimeout)
    if (o.maxConnections < 1) return yield* usageError(`--max-connections: must be at least 1, got ${o.maxConnections}`)
    const addedLatencyMs = yield* parseNonNegativeDurationFlag("--added-latency", o.addedLatency)
    if (Option.isSome(o.watchBufferSize) && o.watchBufferSize.value < 1) return yield* usageError(`--watch-buffer-size: must be at least 1, got ${o.watchBufferSize.value}`)
    const watchBuffer = Option.isSome(o.watchBufferSize) ? { watchBufferSize: o.watchBufferSize.value } : {}
    const live = livePlan(o)
    if (live !== undefined && Either.isLeft(live)) return yield* usageError(live.left)
    const plan = live?.pipe(Either.getOrThrow)
    const security = yield* resolveServeSecurity(o.host, {
      tls: o.tls,
      certDir: value(o.certDir),
      tlsCertFile: value(o.tlsCertFile),
      tlsPrivateKeyFile: value(o.tlsPrivateKeyFile),
      clientCaFile: value(o.clientCaFile),
      tokenAuthFile: value(o.tokenAuthFile),
      anonymousAuth: o.anonymousAuth,
      authorizationMode: o.authorizationMode
    })
    if (!(kubeconfigAuths as ReadonlyArray<string>).includes(o.kubeconfigAuth))
      return yield* usageError(`--kubeconfig-auth: expected ${kubeconfigAuths.join(" or ")}, got "${o.kubeconfigAuth}"`)
    if (o.kubeconfigAuth === "token" && security.pki === undefined)
      return yield* usageError("--kubeconfig-auth token: the kubeconfig is the one --tls writes: add --tls")
    const featureGates = parseFeatureGatesFlag(defaultFeatureGates, o.featureGates)
    if (Either.isLeft(featureGates)) return yield* usageError(`--feature-gates: ${featureGates.left.message}`)
    const audit = resolveAudit({
      logPath: value(o.auditLogPath),
      policyFile: value(o.auditPolicyFile),
      maxSizeMB: o.auditLogMaxSize,
      maxBackups: o.auditLogMaxBackup,
      maxAgeDays: o.auditLogMaxAge
    })
    if (Either.isLeft(audit)) return yield* usageError(audit.left)
    for (const w of audit.right.warnings) stderrLine(`clustersim: warning: ${w}`)
    const warning = openAccessWarning(o.host, security)
    if (warning !== undefined) process.stderr.write(warning + "\n")
    const server = ApiServer.layer({
      seed: o.seed,
      historyWindowMs,
      bookmarkIntervalMs,
      ...watchBuffer,
      authentication: security.authentication,
      authorizationMode: security.authorizationMode,
      featureGates: featureGates.right
    })
    const fileLimit = openFilesLimit()
    const maxConnections = connectionCap(o.maxConnections, fileLimit)
    if (maxConnections < o.maxConnections)
      process.stderr.write(
        `clustersim: --max-connections ${o.maxConnections} lowered to ${maxConnections}: this process may open ${fileLimit} files (ulimit -Hn) and keeps ${ownDescriptors} for its own (docs/limits.md)\n`
      )
    const limits = { requestTimeoutMs: Math.round(requestTimeoutMs), maxConnections }
    const requestLog = o.verbose ? { requestLog: (line: string) => void process.stderr.write(`${line}\n`) } : {}
    // with the audit events on stdout (--audit-log-path -), serve's own lines go to stderr, as kube-apiserver logs there:
    // stdout stays a log a replay reads
    const say = value(o.auditLogPath) === "-" ? (line: string) => Effect.sync(() => stderrLine(line)) : (line: string) => Console.log(line)
    return yield* runHttpServer({ host: o.host, port: o.port, admin: o.admin, limits, addedLatencyMs, tls: security.tls, liveCluster: plan !== undefined, metrics: !o.noMetrics, ...requestLog }, (s) =>
      Effect.gen(function* () {
        yield* say(`clustersim API server listening on ${s.url}`)
        let kubeconfig: string | undefined
        if (security.pki && o.kubeconfigAuth === "token") {
          const written = yield* Effect.orDie(writeTokenKubeconfig(yield* ApiServer, s.url, security.pki))
          kubeconfig = written.kubeconfig
          yield* say(`kubeconfig (service account ${written.serviceAccount}, tokens from an exec plugin): ${kubeconfig}`)
          yield* say(`token file (one token of ${written.serviceAccount}, valid 1 h): ${written.tokenFile}`)
        } else if (security.pki) {
          kubeconfig = yield* Effect.orDie(writeKubeconfig(s.url, security.pki))
          yield* say(`kubeconfig (admin client certificate): ${kubeconfig}`)
        }
        if (plan !== undefined) {
          stderrLine(describePlan(plan))
          yield* Effect.forkScoped(runLiveCluster(plan, o.seed, stderrLine, s.inProcessCalls))
        }
        if (o.demo) {
          yield* say(yield* seedDemoCluster)
          yield* say(kubeconfig !== undefined ? `Try: kubectl --kubeconfig ${kubeconfig} get pods -A` : `Try: kubectl --server ${s.url} get pods -A`)
        }
      })
    ).pipe(
      Effect.provide(Layer.mergeAll(server, layerStderrLogger, audit.right.layer ?? Layer.empty)),
      // the flag whose value is at fault: the port in use, the host not this machine's
      Effect.catchTag("ListenError", (e) =>
        usageError(`${e.culprit === "address" ? `--host ${o.host} --port ${o.port}` : e.culprit === "host" ? `--host ${o.host}` : `--port ${o.port}`}: ${e.message}`)
      )
    )
  }).pipe(Effect.catchIf((e): e is FlagError => e instanceof FlagError, (e) => usageError(e.message)))

export const serve = Command.make("serve", serveOptions, (o) => serveHandler({ ...o, demo: o.demo })).pipe(
  Command.withDescription(
    'Run the simulated API server on a real socket (HTTP, or HTTPS with --tls). Prints "clustersim API server listening on http(s)://HOST:PORT" first; Ctrl-C or SIGTERM stops it.'
  )
)

