/**
 * The scheduler's command-line options (spec 001 "Scheduler command-line options"), parsed like upstream
 * kube-scheduler 1.26 (cobra + pflag, flag sections as `cmd/kube-scheduler/app/options`). The flag table
 * below is the spec's table; descriptions paraphrase the spec's "Meaning" column.
 */
import { Data, Either } from "effect"
import { isIP } from "node:net"
import {
  defaultFeatureGates,
  type FeatureGates,
  knownFeatures,
  knownFeaturesHelp,
  parseFeatureGatesFlag,
  parseGoBool,
  warningsFor
} from "../../../src/api/FeatureGates.js"
import { formatDuration, parseDuration } from "../../../src/api/go/Duration.js"
import type { SchedulerConfiguration } from "./SchedulerConfiguration.js"
import { readCsvRecord } from "../../../src/api/go/Csv.js"
import { parseGoFloat, parseGoInt, parseGoUint } from "../../../src/api/go/Strconv.js"
import { goQuote } from "../../../src/api/go/Quote.js"
import { type FlagDef, type FlagKind, flagUsages, parseArgs } from "./internal/pflag.js"

/** Upstream kube-scheduler, renamed per the spec's naming rule. */
export const commandName = "platform-scheduler"

export class SchedulerFlagError extends Data.TaggedError("SchedulerFlagError")<{ readonly message: string }> {}

export interface NamedCertKey {
  readonly certFile: string
  readonly keyFile: string
  readonly names: ReadonlyArray<string>
}

export interface VModuleItem {
  readonly pattern: string
  readonly verbosity: number
}

/** Every flag's value after parsing (the default when not given). Durations are milliseconds. */
export interface SchedulerFlagValues {
  // misc
  readonly config: string
  readonly master: string
  readonly writeConfigTo: string
  // secure serving
  readonly bindAddress: string
  readonly certDir: string
  readonly http2MaxStreamsPerConnection: number
  readonly permitAddressSharing: boolean
  readonly permitPortSharing: boolean
  readonly securePort: number
  readonly tlsCertFile: string
  readonly tlsCipherSuites: ReadonlyArray<string>
  readonly tlsMinVersion: string
  readonly tlsPrivateKeyFile: string
  readonly tlsSniCertKey: ReadonlyArray<NamedCertKey>
  // authentication
  readonly authenticationPlatformconfig: string
  readonly authenticationSkipLookup: boolean
  readonly authenticationTokenWebhookCacheTtl: number
  readonly authenticationTolerateLookupFailure: boolean
  readonly clientCaFile: string
  readonly requestheaderAllowedNames: ReadonlyArray<string>
  readonly requestheaderClientCaFile: string
  readonly requestheaderExtraHeadersPrefix: ReadonlyArray<string>
  readonly requestheaderGroupHeaders: ReadonlyArray<string>
  readonly requestheaderUsernameHeaders: ReadonlyArray<string>
  // authorization
  readonly authorizationAlwaysAllowPaths: ReadonlyArray<string>
  readonly authorizationPlatformconfig: string
  readonly authorizationWebhookCacheAuthorizedTtl: number
  readonly authorizationWebhookCacheUnauthorizedTtl: number
  // deprecated
  readonly contentionProfiling: boolean
  readonly platformApiBurst: number
  readonly platformApiContentType: string
  readonly platformApiQps: number
  readonly platformconfig: string
  readonly lockObjectName: string
  readonly lockObjectNamespace: string
  readonly podMaxInUnschedulablePodsDuration: number
  readonly profiling: boolean
  // leader election
  readonly leaderElect: boolean
  readonly leaderElectLeaseDuration: number
  readonly leaderElectRenewDeadline: number
  readonly leaderElectResourceLock: string
  readonly leaderElectResourceName: string
  readonly leaderElectResourceNamespace: string
  readonly leaderElectRetryPeriod: number
  // feature gate
  readonly featureGates: FeatureGates
  // metrics
  readonly allowMetricLabels: Readonly<Record<string, string>>
  readonly disabledMetrics: ReadonlyArray<string>
  readonly showHiddenMetricsForVersion: string
  // logs
  readonly logFlushFrequency: number
  readonly loggingFormat: string
  readonly v: number
  readonly vmodule: ReadonlyArray<VModuleItem>
  // global
  readonly vendorContainerRegistryConfig: string
  readonly help: boolean
  /** "false", "true" or "raw" (upstream's version flag). */
  readonly version: string
}

export interface SchedulerOptions {
  readonly flags: SchedulerFlagValues
  /** Long names of the flags given on the command line (upstream `Changed`). */
  readonly changed: ReadonlySet<string>
  readonly featureGates: FeatureGates
  /** `-h`/`--help` was given: print `schedulerHelp()` and exit 0; nothing else was checked. */
  readonly helpRequested: boolean
  /** The decoded `--config` document, once `withConfigFile` loaded it. */
  readonly configFile: SchedulerConfiguration | undefined
  /** What upstream would log while parsing and loading (GA gates set, ignored flags, deprecated apiVersion). */
  readonly warnings: ReadonlyArray<string>
}

// ---- value kinds (pflag types) ----

const text = (s: string) => (s === "" ? undefined : s)
const listText = (v: ReadonlyArray<string>) => (v.length === 0 ? undefined : `[${v.join(",")}]`)

const boolKind: FlagKind<boolean> = {
  typeName: "",
  noOptDefVal: "true",
  set: (_c, _ch, raw) => parseGoBool(raw),
  defaultText: (v) => (v ? "true" : undefined)
}
const stringKind: FlagKind<string> = { typeName: "string", set: (_c, _ch, raw) => Either.right(raw), defaultText: text }
const ipKind: FlagKind<string> = {
  typeName: "ip",
  // Blank means "all interfaces" (spec); anything else must be an IP address.
  set: (_c, _ch, raw) => {
    const t = raw.trim()
    return t === "" || isIP(t) ? Either.right(t) : Either.left(`failed to parse IP: ${goQuote(raw)}`)
  },
  defaultText: text
}
const intKind = (typeName: "int" | "int32", bits: 32 | 64): FlagKind<number> => ({
  typeName,
  set: (_c, _ch, raw) => parseGoInt(raw, 0, bits),
  defaultText: (v) => (v === 0 ? undefined : String(v))
})
const float32Kind: FlagKind<number> = {
  typeName: "float32",
  set: (_c, _ch, raw) => parseGoFloat(raw, 32),
  defaultText: (v) => (v === 0 ? undefined : String(v))
}
const durationKind: FlagKind<number> = {
  typeName: "duration",
  set: (_c, _ch, raw) => parseDuration(raw),
  defaultText: (v) => (v === 0 ? undefined : formatDuration(v))
}
/** pflag stringSlice: CSV; the first occurrence replaces the default, later ones append. */
const stringsKind: FlagKind<ReadonlyArray<string>> = {
  typeName: "strings",
  set: (current, changed, raw) => Either.map(readCsvRecord(raw), (vs) => (changed ? [...current, ...vs] : vs)),
  defaultText: listText
}
const stringToStringKind: FlagKind<Readonly<Record<string, string>>> = {
  typeName: "stringToString",
  set: (current, changed, raw) => {
    const eqs = raw.split("=").length - 1
    if (eqs === 0) return Either.left(`${raw} must be formatted as key=value`)
    const pairs = eqs === 1 ? Either.right([raw.replace(/^"+|"+$/g, "")]) : readCsvRecord(raw)
    if (Either.isLeft(pairs)) return Either.left(pairs.left)
    const out: Record<string, string> = changed ? { ...current } : {}
    for (const pair of pairs.right) {
      const eq = pair.indexOf("=")
      if (eq < 0) return Either.left(`${pair} must be formatted as key=value`)
      out[pair.slice(0, eq)] = pair.slice(eq + 1)
    }
    return Either.right(out)
  },
  defaultText: (v) => `[${Object.entries(v).map(([k, x]) => `${k}=${x}`).join(",")}]`
}
/** cliflag NamedCertKeyArray: `cert,key[:name1,name2]`, each occurrence adds one. */
const namedCertKeyKind: FlagKind<ReadonlyArray<NamedCertKey>> = {
  typeName: "namedCertKey",
  set: (current, changed, raw) => {
    const colon = raw.indexOf(":")
    let keycert = raw.trim()
    let names: Array<string> = []
    if (colon >= 0) {
      keycert = raw.slice(0, colon).trim()
      const list = raw.slice(colon + 1).trim()
      if (list === "") return Either.left("empty names list is not allowed")
      names = list.split(",").map((n) => n.trim())
    }
    const files = keycert.split(",")
    if (files.length !== 2) return Either.left("expected comma separated certificate and key file paths")
    const item = { certFile: files[0]!.trim(), keyFile: files[1]!.trim(), names }
    return Either.right(changed ? [...current, item] : [item])
  },
  defaultText: (v) =>
    `[${v.map((c) => `${c.certFile},${c.keyFile}${c.names.length ? ":" + c.names.join(",") : ""}`).join(";")}]`
}
const featureGatesKind: FlagKind<FeatureGates> = {
  typeName: "mapStringBool",
  set: (current, _ch, raw) => Either.mapLeft(parseFeatureGatesFlag(current, raw), (e) => e.message),
  defaultText: (v) => text(v.toString())
}
/** component-base logs: verbosity is an unsigned 32-bit level. */
const levelKind: FlagKind<number> = {
  typeName: "Level",
  set: (_c, _ch, raw) => parseGoUint(raw, 32),
  defaultText: (v) => (v === 0 ? undefined : String(v))
}
const vmoduleKind: FlagKind<ReadonlyArray<VModuleItem>> = {
  typeName: "pattern=N,...",
  set: (current, _ch, raw) => {
    const out = [...current]
    for (const pat of raw.split(",")) {
      if (pat === "") continue
      const parts = pat.split("=")
      if (parts.length !== 2 || parts[0] === "" || parts[1] === "") {
        return Either.left(`${goQuote(pat)} does not have the pattern=N format`)
      }
      const level = parseGoUint(parts[1]!, 31)
      if (Either.isLeft(level)) return Either.left(`parsing verbosity in ${goQuote(pat)}: ${level.left}`)
      out.push({ pattern: parts[0]!, verbosity: level.right })
    }
    return Either.right(out)
  },
  defaultText: (v) => text(v.map((i) => `${i.pattern}=${i.verbosity}`).join(","))
}
const versionKind: FlagKind<string> = {
  typeName: "version",
  noOptDefVal: "true",
  set: (_c, _ch, raw) => (raw === "raw" ? Either.right("raw") : Either.map(parseGoBool(raw), String)),
  defaultText: (v) => (v === "false" ? undefined : v)
}

// ---- the flag table (spec 001) ----

export type FlagSection =
  | "misc"
  | "secure serving"
  | "authentication"
  | "authorization"
  | "deprecated"
  | "leader election"
  | "feature gate"
  | "metrics"
  | "logs"
  | "global"

/** Section order of upstream's help. */
export const flagSections: ReadonlyArray<FlagSection> = [
  "misc", "secure serving", "authentication", "authorization", "deprecated", "leader election", "feature gate",
  "metrics", "logs", "global"
]

export interface SchedulerFlag extends FlagDef<any> {
  readonly section: FlagSection
  /** Marked DEPRECATED by the spec. */
  readonly deprecated: boolean
  /** A deprecated flag a configuration file replaces: ignored when `--config` is given. */
  readonly replacedByConfigFile: boolean
}

const flag = <V>(
  section: FlagSection,
  name: string,
  kind: FlagKind<V>,
  def: V,
  usage: string,
  extra: { shorthand?: string; deprecated?: boolean; replacedByConfigFile?: boolean } = {}
): SchedulerFlag => ({
  section,
  name,
  kind,
  default: def,
  usage,
  ...(extra.shorthand ? { shorthand: extra.shorthand } : {}),
  deprecated: extra.deprecated ?? false,
  replacedByConfigFile: extra.replacedByConfigFile ?? false
})

const ignoredWithConfig = "This flag is ignored when a configuration file is given with --config."
const deprecatedFlag = <V>(name: string, kind: FlagKind<V>, def: V, usage: string) =>
  flag("deprecated", name, kind, def, `DEPRECATED: ${usage} ${ignoredWithConfig}`, {
    deprecated: true,
    replacedByConfigFile: true
  })

export const schedulerFlags: ReadonlyArray<SchedulerFlag> = [
  flag("misc", "config", stringKind, "", "Path of the configuration file."),
  flag("misc", "master", stringKind, "", "Address of the API server; overrides the one in the connection config file."),
  flag("misc", "write-config-to", stringKind, "", "Write the effective configuration to this file and exit."),

  flag("secure serving", "bind-address", ipKind, "0.0.0.0",
    "IP address to listen on for the --secure-port port. Blank, 0.0.0.0 or :: means all interfaces."),
  flag("secure serving", "cert-dir", stringKind, "",
    "Directory of the TLS certificates. Ignored when --tls-cert-file and --tls-private-key-file are given."),
  flag("secure serving", "http2-max-streams-per-connection", intKind("int", 64), 0,
    "Limit of streams per HTTP/2 connection the server announces to clients. Zero uses the server library's default."),
  flag("secure serving", "permit-address-sharing", boolKind, false, "Bind the port with address reuse (SO_REUSEADDR)."),
  flag("secure serving", "permit-port-sharing", boolKind, false,
    "Bind the port with port reuse (SO_REUSEPORT), so several instances can share an address and port."),
  flag("secure serving", "secure-port", intKind("int", 64), 10259,
    "Port to serve HTTPS on with authentication and authorization. 0 turns HTTPS off."),
  flag("secure serving", "tls-cert-file", stringKind, "",
    "File with the default x509 certificate for HTTPS. When HTTPS is on and neither --tls-cert-file nor --tls-private-key-file is given, a self-signed certificate and key are generated into --cert-dir."),
  flag("secure serving", "tls-cipher-suites", stringsKind, [],
    "Comma-separated cipher suites the server allows; the TLS library's defaults when omitted.\n" +
      "Preferred values: " + preferredCipherSuites().join(", ") + ".\n" +
      "Insecure values: " + insecureCipherSuites().join(", ") + "."),
  flag("secure serving", "tls-min-version", stringKind, "",
    "Lowest TLS version accepted. Possible values: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13"),
  flag("secure serving", "tls-private-key-file", stringKind, "", "File with the x509 private key matching --tls-cert-file."),
  flag("secure serving", "tls-sni-cert-key", namedCertKeyKind, [],
    "A pair of x509 certificate and key file paths, optionally followed by a colon and a list of domain patterns (fully qualified names, possibly with a leading wildcard segment, or IP addresses). Without patterns the names are taken from the certificate. Exact patterns win over wildcards, explicit patterns over names from the certificate. Repeat the flag for several pairs. Examples: \"example.crt,example.key\" or \"foo.crt,foo.key:*.foo.com,foo.com\"."),

  flag("authentication", "authentication-platformconfig", stringKind, "",
    "Connection config file pointing at the core API server, with rights to create token reviews. Optional: when empty, every token request is anonymous and no client CA is looked up in the cluster."),
  flag("authentication", "authentication-skip-lookup", boolKind, false,
    "If false, --authentication-platformconfig is used to look up missing authentication configuration in the cluster."),
  flag("authentication", "authentication-token-webhook-cache-ttl", durationKind, 10_000,
    "How long answers of the token webhook authenticator are cached."),
  flag("authentication", "authentication-tolerate-lookup-failure", boolKind, true,
    "If true, failing to look up missing authentication configuration in the cluster is not fatal; requests may then be treated as anonymous."),
  flag("authentication", "client-ca-file", stringKind, "",
    "A request with a client certificate signed by one of the authorities in this file is authenticated as the certificate's common name."),
  flag("authentication", "requestheader-allowed-names", stringsKind, [],
    "Client certificate common names allowed to supply user names in the headers of --requestheader-username-headers. Empty allows any certificate validated by --requestheader-client-ca-file."),
  flag("authentication", "requestheader-client-ca-file", stringKind, "",
    "Root certificates verifying client certificates before user names in the --requestheader-username-headers headers are trusted."),
  flag("authentication", "requestheader-extra-headers-prefix", stringsKind, ["x-remote-extra-"],
    "Request header prefixes to inspect for extra user information."),
  flag("authentication", "requestheader-group-headers", stringsKind, ["x-remote-group"], "Request headers to inspect for groups."),
  flag("authentication", "requestheader-username-headers", stringsKind, ["x-remote-user"],
    "Request headers to inspect for user names."),

  flag("authorization", "authorization-always-allow-paths", stringsKind, ["/healthz", "/readyz", "/livez"],
    "HTTP paths authorized without asking the core API server."),
  flag("authorization", "authorization-platformconfig", stringKind, "",
    "Connection config file pointing at the core API server, with rights to create access reviews. Optional: when empty, every request not skipped by authorization is forbidden."),
  flag("authorization", "authorization-webhook-cache-authorized-ttl", durationKind, 10_000,
    "How long 'authorized' answers of the webhook authorizer are cached."),
  flag("authorization", "authorization-webhook-cache-unauthorized-ttl", durationKind, 10_000,
    "How long 'unauthorized' answers of the webhook authorizer are cached."),

  deprecatedFlag("contention-profiling", boolKind, true, "enable lock contention profiling when profiling is on."),
  deprecatedFlag("platform-api-burst", intKind("int32", 32), 100, "burst of requests to the API server."),
  deprecatedFlag("platform-api-content-type", stringKind, "application/vnd.platform.protobuf",
    "content type of requests to the API server."),
  deprecatedFlag("platform-api-qps", float32Kind, 50, "queries per second to the API server."),
  deprecatedFlag("platformconfig", stringKind, "",
    "path of a connection config file with the API server location and credentials."),
  deprecatedFlag("lock-object-name", stringKind, "platform-scheduler",
    "name of the lock object; use --leader-elect-resource-name instead."),
  deprecatedFlag("lock-object-namespace", stringKind, "platform-system",
    "namespace of the lock object; use --leader-elect-resource-namespace instead."),
  // No configuration-file field replaces it, so upstream applies it even with --config.
  flag("deprecated", "pod-max-in-unschedulable-pods-duration", durationKind, 300_000,
    "DEPRECATED: longest time a pod may stay in the unschedulable set before it is moved to the backoff or active queue.",
    { deprecated: true }),
  deprecatedFlag("profiling", boolKind, true, "enable profiling through the web interface at host:port/debug/pprof/."),

  flag("leader election", "leader-elect", boolKind, true,
    "Acquire leadership through leader election before running the main loop. Turn on when running replicated schedulers for high availability."),
  flag("leader election", "leader-elect-lease-duration", durationKind, 15_000,
    "How long non-leaders wait after observing a leadership renewal before trying to take over a led but unrenewed slot: the longest a stopped leader can go unreplaced. Only used with leader election."),
  flag("leader election", "leader-elect-renew-deadline", durationKind, 10_000,
    "How long the acting leader keeps trying to renew leadership before it stops leading. Must be less than the lease duration. Only used with leader election."),
  flag("leader election", "leader-elect-resource-lock", stringKind, "leases",
    "Kind of object used as the lock during leader election: 'leases', 'endpointsleases' or 'configmapsleases'."),
  flag("leader election", "leader-elect-resource-name", stringKind, "platform-scheduler",
    "Name of the lock object used during leader election."),
  flag("leader election", "leader-elect-resource-namespace", stringKind, "platform-system",
    "Namespace of the lock object used during leader election."),
  flag("leader election", "leader-elect-retry-period", durationKind, 2_000,
    "How long clients wait between attempts to acquire or renew leadership. Only used with leader election."),

  flag("feature gate", "feature-gates", featureGatesKind, defaultFeatureGates,
    "Comma-separated key=value pairs switching alpha and beta features. Options are:\n" + knownFeaturesHelp().join("\n")),

  flag("metrics", "allow-metric-labels", stringToStringKind, {},
    "Allow-list of values per metric label. Key format: <MetricName>,<LabelName>; value format: <allowed_value>,<allowed_value>... e.g. metric1,label1='v1,v2,v3', metric1,label2='v1,v2,v3' metric2,label1='v1,v2,v3'."),
  flag("metrics", "disabled-metrics", stringsKind, [],
    "Fully qualified names of metrics to turn off. Takes precedence over --show-hidden-metrics-for-version."),
  flag("metrics", "show-hidden-metrics-for-version", stringKind, "",
    "Previous minor version (<major>.<minor>, e.g. '1.25') whose hidden metrics should be shown again. Only the previous minor version is accepted."),

  flag("logs", "log-flush-frequency", durationKind, 5_000, "Longest time between log flushes."),
  flag("logs", "logging-format", stringKind, "text", "Format of the logs. Permitted formats: \"text\"."),
  flag("logs", "v", levelKind, 0, "Log level verbosity.", { shorthand: "v" }),
  flag("logs", "vmodule", vmoduleKind, [],
    "Comma-separated pattern=N settings for file-filtered logging (text format only)."),

  flag("global", "vendor-container-registry-config", stringKind, "",
    "Path of the file with the container registry configuration of a cloud vendor."),
  flag("global", "help", boolKind, false, `help for ${commandName}`, { shorthand: "h" }),
  flag("global", "version", versionKind, "false", "Print version information and quit.")
]

/**
 * The flags the simulated scheduler honours: those that change what it runs with (`SchedulerInstance.ts` reads
 * the configuration file's profile name, scoring percentage, backoffs and leader election), the unschedulable-pods
 * timeout, and the command's own. The others (serving, authentication, authorization, client connection,
 * profiling, feature gates — which only pick plugins it does not run —, metrics, logs) configure a real process's
 * surroundings; they are parsed and checked as upstream does, so a kube-scheduler command line still works, but
 * `--help` leaves them out and giving one prints a warning.
 */
export const honouredFlags: ReadonlySet<string> = new Set([
  "config", "write-config-to",
  "leader-elect", "leader-elect-lease-duration", "leader-elect-renew-deadline", "leader-elect-resource-lock",
  "leader-elect-resource-name", "leader-elect-resource-namespace", "leader-elect-retry-period",
  "lock-object-name", "lock-object-namespace", "pod-max-in-unschedulable-pods-duration", "help"
])

/**
 * A warning for each flag given that the simulation accepts but does not act on (not those `--config` already
 * made ignored, which upstream's warning names).
 */
export const notHonouredWarnings = (opts: Pick<SchedulerOptions, "changed" | "flags">): ReadonlyArray<string> =>
  schedulerFlags
    .filter((f) => opts.changed.has(f.name) && !honouredFlags.has(f.name) && !(opts.flags.config !== "" && f.replacedByConfigFile))
    .map((f) => `flag --${f.name} has no effect in the simulated scheduler (accepted for compatibility with kube-scheduler)`)

function preferredCipherSuites(): Array<string> {
  return [
    "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_RSA_WITH_AES_128_CBC_SHA", "TLS_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_RSA_WITH_AES_256_CBC_SHA", "TLS_RSA_WITH_AES_256_GCM_SHA384"
  ]
}

function insecureCipherSuites(): Array<string> {
  return [
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "TLS_ECDHE_RSA_WITH_RC4_128_SHA", "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
    "TLS_RSA_WITH_AES_128_CBC_SHA256", "TLS_RSA_WITH_RC4_128_SHA"
  ]
}

/** Cipher suite names `--tls-cipher-suites` accepts (spec: preferred and insecure lists). */
export const knownCipherSuites: ReadonlySet<string> = new Set([...preferredCipherSuites(), ...insecureCipherSuites()])

const camel = (name: string) => name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase())

/**
 * Parses the command line. Errors carry pflag's texts; positional arguments are refused as cobra's
 * `Args` check of upstream does, after `--help` was honoured.
 */
export const parseSchedulerFlags = (argv: ReadonlyArray<string>): Either.Either<SchedulerOptions, SchedulerFlagError> => {
  const parsed = parseArgs(schedulerFlags, argv)
  if (Either.isLeft(parsed)) return Either.left(new SchedulerFlagError({ message: parsed.left }))
  const { values, changed, args } = parsed.right
  const flags = Object.fromEntries([...values].map(([name, v]) => [camel(name), v])) as unknown as SchedulerFlagValues
  if (!flags.help && args.some((a) => a.length > 0)) {
    return Either.left(
      new SchedulerFlagError({
        message: `${goQuote(commandName)} does not take any arguments, got [${args.map(goQuote).join(" ")}]`
      })
    )
  }
  // GA and deprecated gates can only be stored by an explicit key (AllAlpha/AllBeta never reach them).
  const gateWarnings = warningsFor(
    Object.fromEntries(
      [...flags.featureGates.explicit].filter(([k]) => {
        const pre = knownFeatures.get(k)?.preRelease
        return pre === "GA" || pre === "Deprecated"
      })
    )
  )
  // Upstream ignores these silently; the simulator says so.
  const ignored =
    flags.config === ""
      ? []
      : schedulerFlags
          .filter((f) => f.replacedByConfigFile && changed.has(f.name))
          .map((f) => `flag --${f.name} is ignored because a configuration file is given with --config`)
  return Either.right({
    flags,
    changed,
    featureGates: flags.featureGates,
    helpRequested: flags.help,
    configFile: undefined,
    warnings: [...gateWarnings, ...ignored]
  })
}

const sectionTitle = (s: FlagSection) => s[0]!.toUpperCase() + s.slice(1)

/**
 * The `--help` text: description, usage line, then the honoured flags in upstream's sections and order (a
 * section with none is left out), and a line on the flags accepted without effect.
 */
export const schedulerHelp = (): string => {
  const head =
    "The scheduler is a control plane process that assigns pods to nodes. It determines which nodes are valid " +
    "placements for each pod in the scheduling queue according to constraints and available resources, ranks " +
    "the valid nodes and binds the pod to a suitable one. Several schedulers may run in one cluster.\n\n" +
    `Usage:\n  ${commandName} [flags]\n`
  const shown = schedulerFlags.filter((f) => honouredFlags.has(f.name))
  const sections = flagSections
    .filter((s) => shown.some((f) => f.section === s))
    .map((s) => `\n${sectionTitle(s)} flags:\n\n${flagUsages(shown.filter((f) => f.section === s))}`)
  const accepted =
    "\nThe other kube-scheduler flags (secure serving, authentication, authorization, client connection, profiling,\n" +
    "feature gates, metrics, logs) are accepted and checked as kube-scheduler does, with a warning: they have no\n" +
    "effect in the simulation.\n"
  return head + sections.join("") + accepted
}
