/**
 * The node agent's configuration document, `NodeAgentConfiguration` in `nodeagent.config.platform/v1beta1`
 * (spec 001 "NodeAgentConfiguration" and "Nested types"; upstream `KubeletConfiguration` v1beta1).
 *
 * Two shapes:
 * - `NodeAgentConfigurationDocument`: what a file says, every field optional (decoded by the codec below);
 * - `NodeAgentConfiguration`: the document after defaulting (upstream v1beta1 `defaults.go`), what the node agent runs
 *   with. Scalars hold Go's zero value when unset; fields that stay nil upstream stay `undefined`.
 *
 * Durations are milliseconds (the simulator's clock unit), except `logging.flushFrequency`, which the
 * document itself writes in nanoseconds (spec: "duration in nanoseconds").
 */
import type { Quantity } from "../../../src/api/go/Quantity.js"
import type { Taint as CoreTaint } from "../../../src/api/kinds/Taints.js"
import * as F from "./FieldCodec.js"

export const group = "nodeagent.config.platform"
export const version = "v1beta1"
export const apiVersion = `${group}/${version}`
export const kind = "NodeAgentConfiguration"
/** The other kind registered in the same group and version (spec: used internally for checkpoints). */
export const serializedNodeConfigSourceKind = "SerializedNodeConfigSource"

// ---- nested types (spec 001 "Nested types of the node agent configuration") ----

const x509Authentication = F.struct("NodeAgentX509Authentication", "v1beta1.NodeAgentX509Authentication", {
  clientCAFile: F.string()
})
const webhookAuthentication = F.struct("NodeAgentWebhookAuthentication", "v1beta1.NodeAgentWebhookAuthentication", {
  enabled: F.bool,
  cacheTTL: F.duration
})
const anonymousAuthentication = F.struct("NodeAgentAnonymousAuthentication", "v1beta1.NodeAgentAnonymousAuthentication", {
  enabled: F.bool
})
const authentication = F.struct("NodeAgentAuthentication", "v1beta1.NodeAgentAuthentication", {
  x509: x509Authentication,
  webhook: webhookAuthentication,
  anonymous: anonymousAuthentication
})
const webhookAuthorization = F.struct("NodeAgentWebhookAuthorization", "v1beta1.NodeAgentWebhookAuthorization", {
  cacheAuthorizedTTL: F.duration,
  cacheUnauthorizedTTL: F.duration
})
const authorization = F.struct("NodeAgentAuthorization", "v1beta1.NodeAgentAuthorization", {
  mode: F.string("v1beta1.NodeAgentAuthorizationMode"),
  webhook: webhookAuthorization
})

/** Spec: "Fields of taints: not shown"; upstream core/v1 `Taint`. */
const taint = F.struct("Taint", "v1.Taint", {
  key: F.string(),
  value: F.string(),
  effect: F.string("v1.TaintEffect"),
  timeAdded: F.time
})

const memoryReservation = F.struct("MemoryReservation", "v1beta1.MemoryReservation", {
  numaNode: F.int("int32"),
  limits: F.record(F.quantity, "v1.ResourceList")
})

const memorySwap = F.struct("MemorySwapConfiguration", "v1beta1.MemorySwapConfiguration", {
  swapBehavior: F.string()
})

const shutdownGracePeriodByPodPriority = F.struct(
  "ShutdownGracePeriodByPodPriority",
  "v1beta1.ShutdownGracePeriodByPodPriority",
  {
    priority: F.int("int32"),
    shutdownGracePeriodSeconds: F.int("int64")
  }
)

/** Spec: "The shape of a per-file verbosity item (`vmodule`): not shown"; upstream `VModuleItem`. */
const vmoduleItem = F.struct("VModuleItem", "v1.VModuleItem", {
  filePattern: F.string(),
  verbosity: F.int("uint32", "v1.VerbosityLevel")
})

const jsonOptions = F.struct("JSONOptions", "v1.JSONOptions", {
  splitStream: F.bool,
  infoBufferSize: F.quantity
})

const logging = F.struct("LoggingConfiguration", "v1.LoggingConfiguration", {
  format: F.string(),
  flushFrequency: F.int("int64", "time.Duration"),
  verbosity: F.int("uint32", "v1.VerbosityLevel"),
  vmodule: F.list(vmoduleItem, "v1.VModuleConfiguration"),
  options: F.struct("FormatOptions", "v1.FormatOptions", { json: jsonOptions })
})

const tracing = F.struct("TracingConfiguration", "v1.TracingConfiguration", {
  endpoint: F.string(),
  samplingRatePerMillion: F.int("int32")
})

const stringMap = F.record(F.string())

/** Every field of the spec table, with upstream's Go types (they name types in decode errors). */
export const documentCodec = F.struct(kind, `v1beta1.${kind}`, {
  apiVersion: F.string(),
  kind: F.string(),
  enableServer: F.bool,
  staticPodPath: F.string(),
  syncFrequency: F.duration,
  fileCheckFrequency: F.duration,
  httpCheckFrequency: F.duration,
  staticPodURL: F.string(),
  staticPodURLHeader: F.record(F.list(F.string())),
  address: F.string(),
  port: F.int("int32"),
  readOnlyPort: F.int("int32"),
  tlsCertFile: F.string(),
  tlsPrivateKeyFile: F.string(),
  tlsCipherSuites: F.list(F.string()),
  tlsMinVersion: F.string(),
  rotateCertificates: F.bool,
  serverTLSBootstrap: F.bool,
  authentication,
  authorization,
  registryPullQPS: F.int("int32"),
  registryBurst: F.int("int32"),
  eventRecordQPS: F.int("int32"),
  eventBurst: F.int("int32"),
  enableDebuggingHandlers: F.bool,
  enableContentionProfiling: F.bool,
  healthzPort: F.int("int32"),
  healthzBindAddress: F.string(),
  oomScoreAdj: F.int("int32"),
  clusterDomain: F.string(),
  clusterDNS: F.list(F.string()),
  streamingConnectionIdleTimeout: F.duration,
  nodeStatusUpdateFrequency: F.duration,
  nodeStatusReportFrequency: F.duration,
  nodeLeaseDurationSeconds: F.int("int32"),
  imageMinimumGCAge: F.duration,
  imageGCHighThresholdPercent: F.int("int32"),
  imageGCLowThresholdPercent: F.int("int32"),
  volumeStatsAggPeriod: F.duration,
  nodeAgentCgroups: F.string(),
  systemCgroups: F.string(),
  cgroupRoot: F.string(),
  cgroupsPerQOS: F.bool,
  cgroupDriver: F.string(),
  cpuManagerPolicy: F.string(),
  cpuManagerPolicyOptions: stringMap,
  cpuManagerReconcilePeriod: F.duration,
  memoryManagerPolicy: F.string(),
  topologyManagerPolicy: F.string(),
  topologyManagerScope: F.string(),
  topologyManagerPolicyOptions: stringMap,
  qosReserved: stringMap,
  runtimeRequestTimeout: F.duration,
  hairpinMode: F.string(),
  maxPods: F.int("int32"),
  podCIDR: F.string(),
  podPidsLimit: F.int("int64"),
  resolvConf: F.string(),
  runOnce: F.bool,
  cpuCFSQuota: F.bool,
  cpuCFSQuotaPeriod: F.duration,
  nodeStatusMaxImages: F.int("int32"),
  maxOpenFiles: F.int("int64"),
  contentType: F.string(),
  platformAPIQPS: F.int("int32"),
  platformAPIBurst: F.int("int32"),
  serializeImagePulls: F.bool,
  evictionHard: stringMap,
  evictionSoft: stringMap,
  evictionSoftGracePeriod: stringMap,
  evictionPressureTransitionPeriod: F.duration,
  evictionMaxPodGracePeriod: F.int("int32"),
  evictionMinimumReclaim: stringMap,
  podsPerCore: F.int("int32"),
  enableControllerAttachDetach: F.bool,
  protectKernelDefaults: F.bool,
  makeIPTablesUtilChains: F.bool,
  iptablesMasqueradeBit: F.int("int32"),
  iptablesDropBit: F.int("int32"),
  featureGates: F.record(F.bool),
  failSwapOn: F.bool,
  memorySwap,
  containerLogMaxSize: F.string(),
  containerLogMaxFiles: F.int("int32"),
  configMapAndSecretChangeDetectionStrategy: F.string("v1beta1.ResourceChangeDetectionStrategy"),
  systemReserved: stringMap,
  platformReserved: stringMap,
  reservedSystemCPUs: F.string(),
  showHiddenMetricsForVersion: F.string(),
  systemReservedCgroup: F.string(),
  platformReservedCgroup: F.string(),
  enforceNodeAllocatable: F.list(F.string()),
  allowedUnsafeSysctls: F.list(F.string()),
  volumePluginDir: F.string(),
  providerID: F.string(),
  kernelMemcgNotification: F.bool,
  logging,
  enableSystemLogHandler: F.bool,
  shutdownGracePeriod: F.duration,
  shutdownGracePeriodCriticalPods: F.duration,
  shutdownGracePeriodByPodPriority: F.list(shutdownGracePeriodByPodPriority),
  reservedMemory: F.list(memoryReservation),
  enableProfilingHandler: F.bool,
  enableDebugFlagsHandler: F.bool,
  seccompDefault: F.bool,
  memoryThrottlingFactor: F.float64,
  registerWithTaints: F.list(taint),
  registerNode: F.bool,
  tracing,
  localStorageCapacityIsolation: F.bool
})

/** A configuration file as written: every field optional. */
export type NodeAgentConfigurationDocument = F.TypeOf<typeof documentCodec>

/** A decoded taint: its value always present (`timeAdded` must be unset in `registerWithTaints`). */
export interface Taint extends CoreTaint {
  readonly value: string
}

export interface MemoryReservation {
  readonly numaNode: number
  readonly limits: Readonly<Record<string, Quantity>>
}

export interface ShutdownGracePeriodByPodPriority {
  readonly priority: number
  readonly shutdownGracePeriodSeconds: number
}

export interface VModuleItem {
  readonly filePattern: string
  readonly verbosity: number
}

export interface LoggingConfiguration {
  /** `text` (default) or `json`. */
  readonly format: string
  /** Nanoseconds (default 5s). */
  readonly flushFrequency: number
  readonly verbosity: number
  readonly vmodule: ReadonlyArray<VModuleItem>
  readonly options: { readonly json: { readonly splitStream: boolean; readonly infoBufferSize: Quantity } }
}

export interface TracingConfiguration {
  readonly endpoint?: string
  readonly samplingRatePerMillion?: number
}

type StringMap = Readonly<Record<string, string>>

/** The configuration after defaulting. Durations in milliseconds. */
export interface NodeAgentConfiguration {
  readonly enableServer: boolean
  readonly staticPodPath: string
  readonly syncFrequency: number
  readonly fileCheckFrequency: number
  readonly httpCheckFrequency: number
  readonly staticPodURL: string
  readonly staticPodURLHeader?: Readonly<Record<string, ReadonlyArray<string>>>
  readonly address: string
  readonly port: number
  /** 0 disables the read-only service. */
  readonly readOnlyPort: number
  readonly tlsCertFile: string
  readonly tlsPrivateKeyFile: string
  readonly tlsCipherSuites?: ReadonlyArray<string>
  readonly tlsMinVersion: string
  readonly rotateCertificates: boolean
  readonly serverTLSBootstrap: boolean
  readonly authentication: {
    readonly x509: { readonly clientCAFile: string }
    readonly webhook: { readonly enabled: boolean; readonly cacheTTL: number }
    readonly anonymous: { readonly enabled: boolean }
  }
  readonly authorization: {
    /** `AlwaysAllow` or `Webhook`. */
    readonly mode: string
    readonly webhook: { readonly cacheAuthorizedTTL: number; readonly cacheUnauthorizedTTL: number }
  }
  /** 0 means no limit. */
  readonly registryPullQPS: number
  readonly registryBurst: number
  /** 0 means no limit. */
  readonly eventRecordQPS: number
  readonly eventBurst: number
  readonly enableDebuggingHandlers: boolean
  readonly enableContentionProfiling: boolean
  /** 0 disables the health endpoint. */
  readonly healthzPort: number
  readonly healthzBindAddress: string
  readonly oomScoreAdj: number
  readonly clusterDomain: string
  readonly clusterDNS?: ReadonlyArray<string>
  readonly streamingConnectionIdleTimeout: number
  readonly nodeStatusUpdateFrequency: number
  readonly nodeStatusReportFrequency: number
  readonly nodeLeaseDurationSeconds: number
  readonly imageMinimumGCAge: number
  readonly imageGCHighThresholdPercent: number
  readonly imageGCLowThresholdPercent: number
  readonly volumeStatsAggPeriod: number
  readonly nodeAgentCgroups: string
  readonly systemCgroups: string
  readonly cgroupRoot: string
  readonly cgroupsPerQOS: boolean
  readonly cgroupDriver: string
  readonly cpuManagerPolicy: string
  readonly cpuManagerPolicyOptions?: StringMap
  readonly cpuManagerReconcilePeriod: number
  readonly memoryManagerPolicy: string
  readonly topologyManagerPolicy: string
  readonly topologyManagerScope: string
  readonly topologyManagerPolicyOptions?: StringMap
  readonly qosReserved?: StringMap
  readonly runtimeRequestTimeout: number
  readonly hairpinMode: string
  readonly maxPods: number
  readonly podCIDR: string
  readonly podPidsLimit: number
  readonly resolvConf: string
  readonly runOnce: boolean
  readonly cpuCFSQuota: boolean
  readonly cpuCFSQuotaPeriod: number
  readonly nodeStatusMaxImages: number
  readonly maxOpenFiles: number
  readonly contentType: string
  readonly platformAPIQPS: number
  readonly platformAPIBurst: number
  readonly serializeImagePulls: boolean
  /** Hard thresholds by signal; setting any key replaces the whole default map. */
  readonly evictionHard: StringMap
  readonly evictionSoft?: StringMap
  readonly evictionSoftGracePeriod?: StringMap
  readonly evictionPressureTransitionPeriod: number
  readonly evictionMaxPodGracePeriod: number
  readonly evictionMinimumReclaim?: StringMap
  readonly podsPerCore: number
  readonly enableControllerAttachDetach: boolean
  readonly protectKernelDefaults: boolean
  readonly makeIPTablesUtilChains: boolean
  readonly iptablesMasqueradeBit: number
  readonly iptablesDropBit: number
  readonly featureGates?: Readonly<Record<string, boolean>>
  readonly failSwapOn: boolean
  readonly memorySwap: { readonly swapBehavior: string }
  readonly containerLogMaxSize: string
  readonly containerLogMaxFiles: number
  readonly configMapAndSecretChangeDetectionStrategy: string
  readonly systemReserved?: StringMap
  readonly platformReserved?: StringMap
  readonly reservedSystemCPUs: string
  readonly showHiddenMetricsForVersion: string
  readonly systemReservedCgroup: string
  readonly platformReservedCgroup: string
  readonly enforceNodeAllocatable: ReadonlyArray<string>
  readonly allowedUnsafeSysctls?: ReadonlyArray<string>
  readonly volumePluginDir: string
  readonly providerID: string
  readonly kernelMemcgNotification: boolean
  readonly logging: LoggingConfiguration
  readonly enableSystemLogHandler: boolean
  readonly shutdownGracePeriod: number
  readonly shutdownGracePeriodCriticalPods: number
  readonly shutdownGracePeriodByPodPriority?: ReadonlyArray<ShutdownGracePeriodByPodPriority>
  readonly reservedMemory?: ReadonlyArray<MemoryReservation>
  readonly enableProfilingHandler: boolean
  readonly enableDebugFlagsHandler: boolean
  readonly seccompDefault: boolean
  /** Always set by defaulting (0.8); left optional because validation checks its presence under MemoryQoS. */
  readonly memoryThrottlingFactor?: number
  readonly registerWithTaints?: ReadonlyArray<Taint>
  readonly registerNode: boolean
  readonly tracing?: TracingConfiguration
  readonly localStorageCapacityIsolation: boolean
}
