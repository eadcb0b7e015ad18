/**
 * The scheduler's configuration document — upstream `KubeSchedulerConfiguration` of
 * `kubescheduler.config.k8s.io/v1`, renamed by the spec's rule (`kube` → `platform`, `.k8s.io` →
 * `.platform`): kind `PlatformSchedulerConfiguration`, apiVersion `platformscheduler.config.platform/v1`.
 * Decoding is strict like upstream's scheduler scheme; defaults are upstream v1's of 1.26; validation is
 * `ValidateKubeSchedulerConfiguration` of 1.26 (which still accepts every resource lock kind).
 */
import { Data, Either } from "effect"
import { parse as parseYaml, stringify as stringifyYaml } from "yaml"
import { formatDuration, parseDuration } from "../../../src/api/go/Duration.js"
import { defaultFeatureGates, type FeatureGates } from "../../../src/api/FeatureGates.js"
import { goQuote } from "../../../src/api/go/Quote.js"

export const schedulerConfigGroup = "platformscheduler.config.platform"
export const schedulerConfigApiVersion = `${schedulerConfigGroup}/v1`
export const schedulerConfigKind = "PlatformSchedulerConfiguration"
/** v1beta3 still decodes in 1.26, with a deprecation notice; v1beta2 was removed in 1.26. */
export const deprecatedApiVersions: ReadonlyMap<string, string> = new Map([
  [`${schedulerConfigGroup}/v1beta3`, `${schedulerConfigKind} v1beta3 is deprecated in v1.26, will be removed in v1.29`]
])

export const defaultSchedulerName = "default-scheduler"

export class SchedulerConfigError extends Data.TaggedError("SchedulerConfigError")<{
  readonly message: string
  /** The individual errors an aggregated message is made of. */
  readonly errors: ReadonlyArray<string>
}> {}

/** One message alone, several as `[a, b]` (upstream `utilerrors.NewAggregate`). */
export const configError = (errors: ReadonlyArray<string>): SchedulerConfigError =>
  new SchedulerConfigError({ message: errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]`, errors })

/** Durations are milliseconds. */
export interface LeaderElectionConfiguration {
  readonly leaderElect: boolean
  readonly leaseDuration: number
  readonly renewDeadline: number
  readonly retryPeriod: number
  readonly resourceLock: string
  readonly resourceName: string
  readonly resourceNamespace: string
}

export interface ClientConnectionConfiguration {
  /** Upstream `kubeconfig`. */
  readonly platformconfig: string
  readonly acceptContentTypes: string
  readonly contentType: string
  readonly qps: number
  readonly burst: number
}

export interface PluginConfig {
  readonly name: string
  readonly args: unknown
}

export interface SchedulerProfile {
  readonly schedulerName: string
  readonly percentageOfNodesToScore?: number
  /** Upstream `Plugins`, kept as written (extension point → enabled/disabled lists). */
  readonly plugins: unknown
  readonly pluginConfig: ReadonlyArray<PluginConfig>
}

export interface SchedulerConfiguration {
  readonly apiVersion: string
  readonly kind: string
  readonly parallelism: number
  readonly leaderElection: LeaderElectionConfiguration
  readonly clientConnection: ClientConnectionConfiguration
  readonly enableProfiling: boolean
  readonly enableContentionProfiling: boolean
  readonly percentageOfNodesToScore: number
  readonly podInitialBackoffSeconds: number
  readonly podMaxBackoffSeconds: number
  readonly profiles: ReadonlyArray<SchedulerProfile>
  readonly extenders: ReadonlyArray<unknown>
}

// ---- defaults (upstream pkg/scheduler/apis/config/v1/default_plugins.go, defaults.go) ----

const defaultPlugins: ReadonlyArray<{ readonly name: string; readonly weight?: number }> = [
  { name: "PrioritySort" },
  { name: "NodeUnschedulable" },
  { name: "NodeName" },
  { name: "TaintToleration", weight: 3 },
  { name: "NodeAffinity", weight: 2 },
  { name: "NodePorts" },
  { name: "NodeResourcesFit", weight: 1 },
  { name: "VolumeRestrictions" },
  { name: "EBSLimits" },
  { name: "GCEPDLimits" },
  { name: "NodeVolumeLimits" },
  { name: "AzureDiskLimits" },
  { name: "VolumeBinding" },
  { name: "VolumeZone" },
  { name: "PodTopologySpread", weight: 2 },
  { name: "InterPodAffinity", weight: 2 },
  { name: "DefaultPreemption" },
  { name: "NodeResourcesBalancedAllocation", weight: 1 },
  { name: "ImageLocality", weight: 1 },
  { name: "DefaultBinder" }
]

/** The default multi-point plugin set; alpha gates add SchedulingGates and DynamicResources (`default_plugins.go`). */
export const defaultMultiPointPlugins = (gates: FeatureGates): ReadonlyArray<{ name: string; weight?: number }> => {
  const out = defaultPlugins.map((p) => ({ ...p }))
  if (gates.enabled("PodSchedulingReadiness")) out.push({ name: "SchedulingGates" })
  if (gates.enabled("DynamicResourceAllocation")) {
    out.splice(out.findIndex((p) => p.name === "DefaultPreemption"), 0, { name: "DynamicResources" })
  }
  return out
}

const resourceWeights = [
  { name: "cpu", weight: 1 },
  { name: "memory", weight: 1 }
]

/** Default args of the in-tree plugins that take args. */
const defaultPluginArgs: Readonly<Record<string, Record<string, unknown>>> = {
  DefaultPreemption: { minCandidateNodesAbsolute: 100, minCandidateNodesPercentage: 10 },
  InterPodAffinity: { hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: false },
  NodeAffinity: {},
  NodeResourcesBalancedAllocation: { resources: resourceWeights },
  NodeResourcesFit: { scoringStrategy: { resources: resourceWeights, type: "LeastAllocated" } },
  PodTopologySpread: { defaultingType: "System" },
  VolumeBinding: { bindTimeoutSeconds: 600 }
}

const argsFor = (name: string, apiVersion: string): unknown => ({
  apiVersion,
  kind: `${name}Args`,
  ...structuredClone(defaultPluginArgs[name])
})

/** Names of the plugins a `plugins` value enables at any extension point. */
const enabledPluginNames = (plugins: unknown): ReadonlyArray<string> => {
  const names: Array<string> = []
  if (plugins && typeof plugins === "object") {
    for (const point of Object.values(plugins as Record<string, unknown>)) {
      const enabled = (point as { enabled?: unknown } | null)?.enabled
      if (Array.isArray(enabled)) {
        for (const p of enabled) if (typeof p?.name === "string" && !names.includes(p.name)) names.push(p.name)
      }
    }
  }
  return names
}

/**
 * Upstream v1 profile defaults: scheduler name, the default plugins when none are written (a written
 * set is kept as is — upstream merges it into the defaults), and default args appended for enabled
 * plugins that take args and have no entry.
 */
const defaultProfile = (p: Partial<SchedulerProfile>, apiVersion: string, gates: FeatureGates): SchedulerProfile => {
  const plugins = p.plugins ?? { multiPoint: { enabled: defaultMultiPointPlugins(gates) } }
  const pluginConfig = [...(p.pluginConfig ?? [])]
  for (const name of enabledPluginNames(plugins)) {
    if (name in defaultPluginArgs && !pluginConfig.some((c) => c.name === name)) {
      pluginConfig.push({ name, args: argsFor(name, apiVersion) })
    }
  }
  return {
    schedulerName: p.schedulerName || defaultSchedulerName,
    ...(p.percentageOfNodesToScore !== undefined ? { percentageOfNodesToScore: p.percentageOfNodesToScore } : {}),
    plugins,
    pluginConfig
  }
}

type Partial2<T> = { -readonly [K in keyof T]?: T[K] extends object ? Partial2<T[K]> : T[K] }

const applyDefaults = (
  c: Partial2<Omit<SchedulerConfiguration, "profiles" | "extenders">> & {
    profiles?: ReadonlyArray<Partial<SchedulerProfile>>
    extenders?: ReadonlyArray<unknown>
  },
  apiVersion: string,
  gates: FeatureGates
): SchedulerConfiguration => {
  const le = c.leaderElection ?? {}
  const cc = c.clientConnection ?? {}
  const enableProfiling = c.enableProfiling ?? true
  const profiles = c.profiles && c.profiles.length > 0 ? c.profiles : [{}]
  return {
    apiVersion,
    kind: schedulerConfigKind,
    parallelism: c.parallelism ?? 16,
    leaderElection: {
      leaderElect: le.leaderElect ?? true,
      leaseDuration: le.leaseDuration || 15_000,
      renewDeadline: le.renewDeadline || 10_000,
      retryPeriod: le.retryPeriod || 2_000,
      resourceLock: le.resourceLock || "leases",
      resourceName: le.resourceName || "platform-scheduler",
      resourceNamespace: le.resourceNamespace || "platform-system"
    },
    clientConnection: {
      platformconfig: cc.platformconfig ?? "",
      acceptContentTypes: cc.acceptContentTypes ?? "",
      contentType: cc.contentType || "application/vnd.platform.protobuf",
      qps: cc.qps || 50,
      burst: cc.burst || 100
    },
    enableProfiling,
    // Contention profiling defaults on only when profiling is on.
    enableContentionProfiling: c.enableContentionProfiling ?? enableProfiling,
    percentageOfNodesToScore: c.percentageOfNodesToScore ?? 0,
    podInitialBackoffSeconds: c.podInitialBackoffSeconds ?? 1,
    podMaxBackoffSeconds: c.podMaxBackoffSeconds ?? 10,
    profiles: profiles.map((p) => defaultProfile(p, apiVersion, gates)),
    extenders: c.extenders ?? []
  }
}

/** The configuration of an empty document: every upstream default. */
export const defaultSchedulerConfiguration = (gates: FeatureGates = defaultFeatureGates): SchedulerConfiguration =>
  applyDefaults({}, schedulerConfigApiVersion, gates)

// ---- decoding ----

type FieldType = "bool" | "string" | "int32" | "int64" | "float32" | "duration"
const goTypeName: Record<FieldType, string> = {
  bool: "bool",
  string: "string",
  int32: "int32",
  int64: "int64",
  float32: "float32",
  duration: "v1.Duration"
}

interface StructShape {
  readonly goName: string
  readonly fields: Readonly<Record<string, FieldType | StructShape | "profiles" | "list">>
}

const leaderElectionShape: StructShape = {
  goName: "LeaderElectionConfiguration",
  fields: {
    leaderElect: "bool",
    leaseDuration: "duration",
    renewDeadline: "duration",
    retryPeriod: "duration",
    resourceLock: "string",
    resourceName: "string",
    resourceNamespace: "string"
  }
}
const clientConnectionShape: StructShape = {
  goName: "ClientConnectionConfiguration",
  fields: { platformconfig: "string", acceptContentTypes: "string", contentType: "string", qps: "float32", burst: "int32" }
}
const configShape: StructShape = {
  goName: schedulerConfigKind,
  fields: {
    apiVersion: "string",
    kind: "string",
    parallelism: "int32",
    leaderElection: leaderElectionShape,
    clientConnection: clientConnectionShape,
    enableProfiling: "bool",
    enableContentionProfiling: "bool",
    percentageOfNodesToScore: "int32",
    podInitialBackoffSeconds: "int64",
    podMaxBackoffSeconds: "int64",
    profiles: "profiles",
    extenders: "list"
  }
}
const profileShape: StructShape = {
  goName: "PlatformSchedulerProfile",
  fields: { schedulerName: "string", percentageOfNodesToScore: "int32", plugins: "list", pluginConfig: "list" }
}

const jsonKind = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v === "boolean" ? "bool" : typeof v

class DecodeFailure {
  constructor(readonly message: string) {}
}

/** Decodes one struct: type errors abort (as Go's json), unknown fields are collected (strict decoding). */
const decodeStruct = (
  value: unknown,
  shape: StructShape,
  path: string,
  unknown: Array<string>
): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  const mismatch = (v: unknown, field: string, type: string) =>
    new DecodeFailure(
      `json: cannot unmarshal ${jsonKind(v)} into Go struct field ${shape.goName}.${path}${field} of type ${type}`
    )
  if (value === null || value === undefined) return out
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new DecodeFailure(`json: cannot unmarshal ${jsonKind(value)} into Go value of type struct`)
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const t = shape.fields[k]
    if (t === undefined) {
      unknown.push(`${path}${k}`)
      continue
    }
    if (v === null) continue
    if (typeof t === "object") out[k] = decodeStruct(v, t, `${path}${k}.`, unknown)
    else if (t === "profiles") {
      if (!Array.isArray(v)) throw mismatch(v, k, `[]${profileShape.goName}`)
      out[k] = v.map((p, i) => decodeStruct(p, profileShape, `${path}${k}[${i}].`, unknown))
    } else if (t === "list") {
      if (k === "plugins") {
        if (typeof v !== "object" || Array.isArray(v)) throw mismatch(v, k, "Plugins")
      } else if (!Array.isArray(v)) throw mismatch(v, k, "[]interface {}")
      out[k] = v
    } else if (t === "bool") {
      if (typeof v !== "boolean") throw mismatch(v, k, goTypeName[t])
      out[k] = v
    } else if (t === "string") {
      if (typeof v !== "string") throw mismatch(v, k, goTypeName[t])
      out[k] = v
    } else if (t === "duration") {
      if (typeof v !== "string") throw new DecodeFailure(`json: cannot unmarshal ${jsonKind(v)} into Go value of type string`)
      const ms = parseDuration(v)
      if (Either.isLeft(ms)) throw new DecodeFailure(ms.left)
      out[k] = ms.right
    } else {
      const bits = t === "int32" ? 32 : 64
      const ok =
        typeof v === "number" &&
        (t === "float32" ? Number.isFinite(v) : Number.isInteger(v) && Math.abs(v) < 2 ** (bits - 1))
      if (!ok) throw mismatch(v, k, goTypeName[t])
      out[k] = v
    }
  }
  return out
}

const schemeName = "pkg/scheduler/apis/config/scheme/scheme.go:30"

export interface LoadedConfiguration {
  readonly configuration: SchedulerConfiguration
  /** Notices upstream logs while loading (deprecated apiVersion). */
  readonly warnings: ReadonlyArray<string>
}

/**
 * Decodes a configuration file's text (YAML or JSON), strictly, and applies the v1 defaults. The gates
 * decide the default plugin set.
 */
export const loadConfiguration = (
  text: string,
  gates: FeatureGates = defaultFeatureGates
): Either.Either<LoadedConfiguration, SchedulerConfigError> => {
  let doc: unknown
  try {
    doc = parseYaml(text)
  } catch (e) {
    return Either.left(configError([`error converting YAML to JSON: ${(e as Error).message}`]))
  }
  const record = doc && typeof doc === "object" && !Array.isArray(doc) ? (doc as Record<string, unknown>) : {}
  const kind = typeof record.kind === "string" ? record.kind : ""
  const apiVersion = typeof record.apiVersion === "string" ? record.apiVersion : ""
  if (kind === "") return Either.left(configError([`Object 'Kind' is missing in '${text}'`]))
  if (apiVersion === "") return Either.left(configError([`Object 'apiVersion' is missing in '${text}'`]))
  if (kind !== schedulerConfigKind || (apiVersion !== schedulerConfigApiVersion && !deprecatedApiVersions.has(apiVersion))) {
    return Either.left(
      configError([`no kind ${goQuote(kind)} is registered for version ${goQuote(apiVersion)} in scheme ${goQuote(schemeName)}`])
    )
  }
  const unknown: Array<string> = []
  let decoded: Record<string, unknown>
  try {
    decoded = decodeStruct(record, configShape, "", unknown)
  } catch (e) {
    if (e instanceof DecodeFailure) return Either.left(configError([e.message]))
    throw e
  }
  if (unknown.length > 0) {
    return Either.left(configError([`strict decoding error: ${unknown.map((u) => `unknown field ${goQuote(u)}`).join(", ")}`]))
  }
  const warning = deprecatedApiVersions.get(apiVersion)
  return Either.right({
    configuration: applyDefaults(decoded as Parameters<typeof applyDefaults>[0], apiVersion, gates),
    warnings: warning ? [warning] : []
  })
}

// ---- encoding ----

const encodeProfile = (p: SchedulerProfile) => ({
  schedulerName: p.schedulerName,
  ...(p.percentageOfNodesToScore !== undefined ? { percentageOfNodesToScore: p.percentageOfNodesToScore } : {}),
  plugins: p.plugins,
  pluginConfig: p.pluginConfig
})

/** The document as upstream writes it: sorted keys, Go duration strings, empty extenders omitted. */
export const encodeConfiguration = (c: SchedulerConfiguration): string =>
  stringifyYaml(
    {
      apiVersion: c.apiVersion,
      kind: c.kind,
      parallelism: c.parallelism,
      leaderElection: {
        ...c.leaderElection,
        leaseDuration: formatDuration(c.leaderElection.leaseDuration),
        renewDeadline: formatDuration(c.leaderElection.renewDeadline),
        retryPeriod: formatDuration(c.leaderElection.retryPeriod)
      },
      clientConnection: c.clientConnection,
      enableProfiling: c.enableProfiling,
      enableContentionProfiling: c.enableContentionProfiling,
      percentageOfNodesToScore: c.percentageOfNodesToScore,
      podInitialBackoffSeconds: c.podInitialBackoffSeconds,
      podMaxBackoffSeconds: c.podMaxBackoffSeconds,
      profiles: c.profiles.map(encodeProfile),
      ...(c.extenders.length > 0 ? { extenders: c.extenders } : {})
    },
    { sortMapEntries: true, indentSeq: false }
  )

// ---- validation (upstream ValidateKubeSchedulerConfiguration, component-base config validation, 1.26) ----

const invalidDuration = (field: string, ms: number, detail: string) =>
  `${field}: Invalid value: ${formatDuration(ms)}: ${detail}`
const invalidString = (field: string, v: string, detail: string) => `${field}: Invalid value: ${goQuote(v)}: ${detail}`
const invalidNumber = (field: string, v: number, detail: string) => `${field}: Invalid value: ${v}: ${detail}`

/**
 * component-base `config/validation/validation.go` `ValidateLeaderElectionConfiguration` as in 1.26: equal lease
 * and renew durations are refused (`<=` since kubernetes#111758, as client-go's `NewLeaderElector`); a duration
 * prints unquoted (`metav1.Duration` is a `fmt.Stringer` to `field.Invalid`), a string quoted. kube-scheduler runs
 * it only on a `--config` file (`options.go` `ApplyTo`); flag-only timings meet `NewLeaderElector`'s checks.
 */
export const validateLeaderElection = (le: LeaderElectionConfiguration, path = "leaderElection"): ReadonlyArray<string> => {
  if (!le.leaderElect) return []
  const errs: Array<string> = []
  if (le.leaseDuration <= 0) errs.push(invalidDuration(`${path}.leaseDuration`, le.leaseDuration, "must be greater than zero"))
  if (le.renewDeadline <= 0) errs.push(invalidDuration(`${path}.renewDeadline`, le.renewDeadline, "must be greater than zero"))
  if (le.retryPeriod <= 0) errs.push(invalidDuration(`${path}.retryPeriod`, le.retryPeriod, "must be greater than zero"))
  // Upstream reports the renew deadline as the value of the leaseDuration error.
  if (le.leaseDuration <= le.renewDeadline) {
    errs.push(invalidDuration(`${path}.leaseDuration`, le.renewDeadline, "LeaseDuration must be greater than RenewDeadline"))
  }
  if (le.resourceLock === "") errs.push(invalidString(`${path}.resourceLock`, "", "resourceLock is required"))
  if (le.resourceNamespace === "") errs.push(invalidString(`${path}.resourceNamespace`, "", "resourceNamespace is required"))
  if (le.resourceName === "") errs.push(invalidString(`${path}.resourceName`, "", "resourceName is required"))
  return errs
}

const validPercentage = (field: string, v: number | undefined): ReadonlyArray<string> =>
  v !== undefined && (v < 0 || v > 100) ? [invalidNumber(field, v, "not in valid range [0-100]")] : []

/** Every error of the document, in upstream's order. */
export const validateConfiguration = (c: SchedulerConfiguration): ReadonlyArray<string> => {
  const errs: Array<string> = []
  if (c.clientConnection.burst < 0) errs.push(invalidNumber("clientConnection.burst", c.clientConnection.burst, "must be non-negative"))
  errs.push(...validateLeaderElection(c.leaderElection))
  if (c.parallelism <= 0) errs.push(invalidNumber("parallelism", c.parallelism, "should be an integer value greater than zero"))
  if (c.profiles.length === 0) errs.push("profiles: Required value")
  const seen = new Map<string, number>()
  c.profiles.forEach((p, i) => {
    if (p.schedulerName === "") errs.push(`profiles[${i}].schedulerName: Required value`)
    errs.push(...validPercentage(`profiles[${i}].percentageOfNodesToScore`, p.percentageOfNodesToScore))
    const first = seen.get(p.schedulerName)
    // Upstream prints the first profile's field path here.
    if (first !== undefined) errs.push(`profiles[${i}].schedulerName: Duplicate value: ${goQuote(`profiles[${first}].schedulerName`)}`)
    else seen.set(p.schedulerName, i)
  })
  errs.push(...validPercentage("percentageOfNodesToScore", c.percentageOfNodesToScore))
  if (c.podInitialBackoffSeconds <= 0) {
    errs.push(invalidNumber("podInitialBackoffSeconds", c.podInitialBackoffSeconds, "must be greater than 0"))
  }
  if (c.podMaxBackoffSeconds < c.podInitialBackoffSeconds) {
    errs.push(
      invalidNumber("podMaxBackoffSeconds", c.podMaxBackoffSeconds, "must be greater than or equal to PodInitialBackoffSeconds")
    )
  }
  return errs
}
