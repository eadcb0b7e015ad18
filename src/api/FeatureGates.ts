/**
 * Feature gates of release 1.26 (spec 001 "Feature gates"; upstream
 * `component-base/featuregate`). A `FeatureGates` value is immutable: setting gates returns a
 * new value, and a failed set leaves the old one untouched (all-or-nothing).
 */
import { Data, Either } from "effect"
import { goQuote } from "./go/Quote.js"

export type PreRelease = "Alpha" | "Beta" | "GA" | "Deprecated"

export interface FeatureSpec {
  readonly name: string
  readonly default: boolean
  readonly preRelease: PreRelease
  readonly lockToDefault: boolean
}

export class FeatureGateError extends Data.TaggedError("FeatureGateError")<{ readonly message: string }> {}

export const allAlphaGate = "AllAlpha"
export const allBetaGate = "AllBeta"

// Spec 001 "Feature gates", grouped as the spec groups them.
const betaOn = [
  "APIListChunking", "APIPriorityAndFairness", "APIResponseCompression", "APIServerIdentity", "AnyVolumeDataSource",
  "AppArmor", "CPUManagerPolicyBetaOptions", "CPUManagerPolicyOptions", "CronJobTimeZone",
  "CustomResourceValidationExpressions", "DownwardAPIHugePages", "ExpandedDNSConfig", "GRPCContainerProbe",
  "GracefulNodeShutdown", "GracefulNodeShutdownBasedOnPodPriority", "JobMutableNodeSchedulingDirectives",
  "JobPodFailurePolicy", "JobReadyPods", "NodeAgentPodResources", "NodeAgentPodResourcesGetAllocatable",
  "LogarithmicScaleDown", "LoggingBetaOptions", "MemoryManager", "NodeInclusionPolicyInPodTopologySpread",
  "NodeOutOfServiceVolumeDetach", "OpenAPIEnums", "OpenAPIV3", "PodDeletionCost", "PodDisruptionConditions",
  "ProbeTerminationGracePeriod", "ProxyTerminatingEndpoints", "RemainingItemCount", "RetroactiveDefaultStorageClass",
  "RotateNodeAgentServerCertificate", "SeccompDefault", "ServerSideFieldValidation", "SizeMemoryBackedVolumes",
  "StorageVersionHash", "TopologyAwareHints", "TopologyManager", "WinOverlay"
] as const

// "CSIMigration for one third-party storage product" is upstream's CSIMigrationPortworx (beta, off in 1.26).
const betaOff = [
  allBetaGate, "CSIMigrationPortworx", "ExperimentalHostUserNamespaceDefaulting", "MinDomainsInPodTopologySpread",
  "TopologyManagerPolicyBetaOptions"
] as const

const alphaOn = ["WindowsHostNetwork"] as const

// The eight `InTreePlugin<Name>Unregister` gates: seven vendor volume plugins and RBD (upstream 1.26 names).
const alphaOff = [
  "APISelfSubjectReview", "APIServerTracing", "AggregatedDiscoveryEndpoint", allAlphaGate,
  "CPUManagerPolicyAlphaOptions", "CSIMigrationRBD", "CSINodeExpandSecret", "CSIVolumeHealth", "ComponentSLIs",
  "ContainerCheckpoint", "ContextualLogging", "CrossNamespaceVolumeDataSource", "CustomCPUCFSQuotaPeriod",
  "DisableCloudProviders", "DisableNodeAgentCloudCredentialProviders", "DynamicResourceAllocation", "EventedPLEG",
  "HPAContainerMetrics", "HPAScaleToZero", "HonorPVReclaimPolicy", "IPTablesOwnershipCleanup",
  "InTreePluginAWSUnregister", "InTreePluginAzureDiskUnregister", "InTreePluginAzureFileUnregister",
  "InTreePluginGCEUnregister", "InTreePluginOpenStackUnregister", "InTreePluginPortworxUnregister",
  "InTreePluginRBDUnregister", "InTreePluginvSphereUnregister", "KMSv2", "NodeAgentInUserNamespace",
  "NodeAgentTracing", "LegacyServiceAccountTokenTracking", "LocalStorageCapacityIsolationFSQuotaMonitoring",
  "LoggingAlphaOptions", "MatchLabelKeysInPodTopologySpread", "MaxUnavailableStatefulSet", "MemoryQoS",
  "MinimizeIPTablesRestore", "MultiCIDRRangeAllocator", "NetworkPolicyStatus", "NodeSwap",
  "PDBUnhealthyPodEvictionPolicy", "PodAndContainerStatsFromCRI", "PodHasNetworkCondition", "PodSchedulingReadiness",
  "ProcMountType", "QOSReserved", "ReadWriteOncePod", "RecoverVolumeExpansionFailure", "SELinuxMountReadWriteOncePod",
  "StatefulSetAutoDeletePVC", "StatefulSetStartOrdinal", "StorageVersionAPI", "TopologyManagerPolicyAlphaOptions",
  "TopologyManagerPolicyOptions", "UserNamespacesStatelessPodsSupport", "ValidatingAdmissionPolicy",
  "VolumeCapacityPriority", "WinDSR"
] as const

// Later releases' gates the simulated API server honours. WatchList: alpha (off) 1.27–1.31, beta on in 1.32, off in
// 1.33, on from 1.34; off here, as in the releases whose stock clients (kubectl 1.27–1.33) mostly meet it.
const laterAlphaOff = ["WatchList"] as const

// GA gates locked on in 1.26 (`pkg/features/kube_features.go`). The spec lists no deprecated gates.
const gaLocked = ["CPUManager", "LocalStorageCapacityIsolation", "NodeAgentCredentialProviders"] as const

const spec = (name: string, def: boolean, preRelease: PreRelease, lockToDefault = false): FeatureSpec => ({
  name,
  default: def,
  preRelease,
  lockToDefault
})

export const knownFeatures: ReadonlyMap<string, FeatureSpec> = new Map(
  [
    ...betaOn.map((n) => spec(n, true, "Beta")),
    ...betaOff.map((n) => spec(n, false, "Beta")),
    ...alphaOn.map((n) => spec(n, true, "Alpha")),
    ...alphaOff.map((n) => spec(n, false, "Alpha")),
    ...laterAlphaOff.map((n) => spec(n, false, "Alpha")),
    ...gaLocked.map((n) => spec(n, true, "GA", true))
  ]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((s) => [s.name, s] as const)
)

/** Upstream names the default gate after its call site; the simulator has one gate set. */
export const featureGateName = "default"

export interface FeatureGates {
  /** Every value stored by a set, including the ones AllAlpha/AllBeta spread (as upstream's `enabled` map). */
  readonly explicit: ReadonlyMap<string, boolean>
  /** Stored value, else the default; an unregistered name is a programming error (throws). */
  enabled(name: string): boolean
  /** Sorted `k=v` of the stored values joined by `,`. */
  toString(): string
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

const make = (explicit: ReadonlyMap<string, boolean>): FeatureGates => ({
  explicit,
  enabled(name) {
    const value = explicit.get(name)
    if (value !== undefined) return value
    const known = knownFeatures.get(name)
    if (!known) throw new Error(`feature ${goQuote(name)} is not registered in FeatureGate ${goQuote(featureGateName)}`)
    return known.default
  },
  toString() {
    return [...explicit].map(([k, v]) => `${k}=${v}`).sort(byCodeUnit).join(",")
  }
})

export const defaultFeatureGates: FeatureGates = make(new Map())

/** Go's `strconv.ParseBool`. */
export const parseGoBool = (s: string): Either.Either<boolean, string> => {
  switch (s) {
    case "1": case "t": case "T": case "TRUE": case "true": case "True":
      return Either.right(true)
    case "0": case "f": case "F": case "FALSE": case "false": case "False":
      return Either.right(false)
    default:
      return Either.left(`strconv.ParseBool: parsing ${goQuote(s)}: invalid syntax`)
  }
}

/**
 * Upstream `SetFromMap`: the first error aborts and nothing is stored. Go iterates the map in random
 * order; here keys are taken in the record's order, so the first offending key (in text order) is reported.
 * AllAlpha/AllBeta give their value to every alpha (beta) gate not stored yet, so explicit keys win
 * whichever comes first.
 */
export const setFromMap = (
  gates: FeatureGates,
  values: Record<string, boolean>
): Either.Either<FeatureGates, FeatureGateError> => {
  const next = new Map(gates.explicit)
  for (const [k, v] of Object.entries(values)) {
    const known = knownFeatures.get(k)
    if (!known) return Either.left(new FeatureGateError({ message: `unrecognized feature gate: ${k}` }))
    if (known.lockToDefault && known.default !== v) {
      return Either.left(
        new FeatureGateError({ message: `cannot set feature gate ${k} to ${v}, feature is locked to ${known.default}` })
      )
    }
    next.set(k, v)
    const spread: PreRelease | undefined = k === allAlphaGate ? "Alpha" : k === allBetaGate ? "Beta" : undefined
    if (spread) {
      for (const f of knownFeatures.values()) {
        if (f.preRelease === spread && !next.has(f.name)) next.set(f.name, v)
      }
    }
  }
  return Either.right(make(next))
}

/**
 * The `--feature-gates` flag value (and upstream `Set`): `A=true, B=false` — split on `,`, skip empty
 * items, split at the first `=`, trim, Go bool parsing, then `setFromMap`.
 */
export const parseFeatureGatesFlag = (
  gates: FeatureGates,
  value: string
): Either.Either<FeatureGates, FeatureGateError> => {
  const m: Record<string, boolean> = {}
  for (const item of value.split(",")) {
    if (item.length === 0) continue
    const eq = item.indexOf("=")
    const k = (eq < 0 ? item : item.slice(0, eq)).trim()
    if (eq < 0) return Either.left(new FeatureGateError({ message: `missing bool value for ${k}` }))
    const v = item.slice(eq + 1).trim()
    const parsed = parseGoBool(v)
    if (Either.isLeft(parsed)) {
      return Either.left(new FeatureGateError({ message: `invalid value of ${k}=${v}, err: ${parsed.left}` }))
    }
    // A repeated key keeps its first position but takes the last value (Go map assignment).
    m[k] = parsed.right
  }
  return setFromMap(gates, m)
}

/** The warnings upstream logs when GA or deprecated gates are set; unknown keys give none. */
export const warningsFor = (values: Record<string, boolean>): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const [k, v] of Object.entries(values)) {
    const known = knownFeatures.get(k)
    if (known?.preRelease === "Deprecated") {
      out.push(`Setting deprecated feature gate ${k}=${v}. It will be removed in a future release.`)
    } else if (known?.preRelease === "GA") {
      out.push(`Setting GA feature gate ${k}=${v}. It will be removed in a future release.`)
    }
  }
  return out
}

/** Help lines as upstream `KnownFeatures`: GA and deprecated gates hidden, sorted. */
export const knownFeaturesHelp = (): ReadonlyArray<string> =>
  [...knownFeatures.values()]
    .filter((f) => f.preRelease === "Alpha" || f.preRelease === "Beta")
    .map((f) => `${f.name}=true|false (${f.preRelease.toUpperCase()} - default=${f.default})`)
    .sort(byCodeUnit)
