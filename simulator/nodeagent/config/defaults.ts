/**
 * Defaulting of a decoded configuration document (upstream v1beta1 `defaults.go` and,
 * for `evictionHard`, the config-file loader). A default fills a field only when it is unset or holds
 * the zero value; upstream's pointer fields (`*bool`, `*int32`) keep an explicit `false` / `0`, its
 * plain fields (`maxPods`, `eventBurst`, `port`, durations …) take the default for an explicit 0 too.
 *
 * No default depends on a feature gate in 1.26: fields that need a gate get their default anyway and
 * validation (validate.ts) decides whether the gate allows a non-default value.
 */
import { makeQuantity } from "../../../src/api/go/Quantity.js"
import type { LoggingConfiguration, NodeAgentConfiguration, NodeAgentConfigurationDocument } from "./NodeAgentConfiguration.js"

const second = 1000
const minute = 60 * second
const hour = 60 * minute

/** Linux default hard thresholds, used when the document has no `evictionHard` at all. */
export const defaultEvictionHard: Readonly<Record<string, string>> = {
  "memory.available": "100Mi",
  "nodefs.available": "10%",
  "nodefs.inodesFree": "5%",
  "imagefs.available": "15%"
}

/** Upstream `/usr/libexec/kubernetes/kubelet-plugins/volume/exec/`, renamed (spec: "a fixed directory under /usr/libexec"). */
export const defaultVolumePluginDir = "/usr/libexec/platform/node-agent-plugins/volume/exec/"
export const defaultResolvConf = "/etc/resolv.conf"
export const defaultContentType = "application/vnd.platform.protobuf"
/** 100ms: the CFS quota period a config may change only with gate CustomCPUCFSQuotaPeriod. */
export const defaultCPUCFSQuotaPeriod = 100
/** Logging flush frequency in nanoseconds (5s). */
export const defaultLogFlushFrequency = 5_000_000_000

/** Plain fields: zero means unset. */
const orZero = (v: number | undefined, d: number): number => (v === undefined || v === 0 ? d : v)
const orEmpty = (v: string | undefined, d: string): string => (v === undefined || v === "" ? d : v)
/** Pointer fields: only nil means unset. */
const orNil = <A>(v: A | undefined, d: A): A => (v === undefined ? d : v)

const defaultLogging = (l: NodeAgentConfigurationDocument["logging"] = {}): LoggingConfiguration => {
  const buffer = l.options?.json?.infoBufferSize
  return {
    format: orEmpty(l.format, "text"),
    flushFrequency: orZero(l.flushFrequency, defaultLogFlushFrequency),
    verbosity: l.verbosity ?? 0,
    vmodule: l.vmodule?.map((item) => ({ filePattern: item.filePattern ?? "", verbosity: item.verbosity ?? 0 })) ?? [],
    options: {
      json: {
        splitStream: l.options?.json?.splitStream ?? false,
        infoBufferSize: buffer ?? makeQuantity(0)
      }
    }
  }
}

/** Applies every default of `defaults.go` to a decoded document. */
export const applyDefaults = (d: NodeAgentConfigurationDocument): NodeAgentConfiguration => {
  const nodeStatusUpdateFrequency = orZero(d.nodeStatusUpdateFrequency, 10 * second)
  return {
    enableServer: orNil(d.enableServer, true),
    staticPodPath: d.staticPodPath ?? "",
    syncFrequency: orZero(d.syncFrequency, minute),
    fileCheckFrequency: orZero(d.fileCheckFrequency, 20 * second),
    httpCheckFrequency: orZero(d.httpCheckFrequency, 20 * second),
    staticPodURL: d.staticPodURL ?? "",
    staticPodURLHeader: d.staticPodURLHeader,
    address: orEmpty(d.address, "0.0.0.0"),
    port: orZero(d.port, 10250),
    readOnlyPort: d.readOnlyPort ?? 0,
    tlsCertFile: d.tlsCertFile ?? "",
    tlsPrivateKeyFile: d.tlsPrivateKeyFile ?? "",
    tlsCipherSuites: d.tlsCipherSuites,
    tlsMinVersion: d.tlsMinVersion ?? "",
    rotateCertificates: d.rotateCertificates ?? false,
    serverTLSBootstrap: d.serverTLSBootstrap ?? false,
    authentication: {
      x509: { clientCAFile: d.authentication?.x509?.clientCAFile ?? "" },
      webhook: {
        enabled: orNil(d.authentication?.webhook?.enabled, true),
        cacheTTL: orZero(d.authentication?.webhook?.cacheTTL, 2 * minute)
      },
      anonymous: { enabled: orNil(d.authentication?.anonymous?.enabled, false) }
    },
    authorization: {
      mode: orEmpty(d.authorization?.mode, "Webhook"),
      webhook: {
        cacheAuthorizedTTL: orZero(d.authorization?.webhook?.cacheAuthorizedTTL, 5 * minute),
        cacheUnauthorizedTTL: orZero(d.authorization?.webhook?.cacheUnauthorizedTTL, 30 * second)
      }
    },
    registryPullQPS: orNil(d.registryPullQPS, 5),
    registryBurst: orZero(d.registryBurst, 10),
    eventRecordQPS: orNil(d.eventRecordQPS, 5),
    eventBurst: orZero(d.eventBurst, 10),
    enableDebuggingHandlers: orNil(d.enableDebuggingHandlers, true),
    enableContentionProfiling: d.enableContentionProfiling ?? false,
    healthzPort: orNil(d.healthzPort, 10248),
    healthzBindAddress: orEmpty(d.healthzBindAddress, "127.0.0.1"),
    oomScoreAdj: orNil(d.oomScoreAdj, -999),
    clusterDomain: d.clusterDomain ?? "",
    clusterDNS: d.clusterDNS,
    streamingConnectionIdleTimeout: orZero(d.streamingConnectionIdleTimeout, 4 * hour),
    nodeStatusUpdateFrequency,
    // An explicitly set update frequency also becomes the report frequency (backward compatibility).
    nodeStatusReportFrequency: orZero(
      d.nodeStatusReportFrequency,
      (d.nodeStatusUpdateFrequency ?? 0) === 0 ? 5 * minute : nodeStatusUpdateFrequency
    ),
    nodeLeaseDurationSeconds: orZero(d.nodeLeaseDurationSeconds, 40),
    imageMinimumGCAge: orZero(d.imageMinimumGCAge, 2 * minute),
    imageGCHighThresholdPercent: orNil(d.imageGCHighThresholdPercent, 85),
    imageGCLowThresholdPercent: orNil(d.imageGCLowThresholdPercent, 80),
    volumeStatsAggPeriod: orZero(d.volumeStatsAggPeriod, minute),
    nodeAgentCgroups: d.nodeAgentCgroups ?? "",
    systemCgroups: d.systemCgroups ?? "",
    cgroupRoot: d.cgroupRoot ?? "",
    cgroupsPerQOS: orNil(d.cgroupsPerQOS, true),
    cgroupDriver: orEmpty(d.cgroupDriver, "cgroupfs"),
    // Spellings as the spec documents them (upstream `defaults.go` sets `none` / `None`).
    cpuManagerPolicy: orEmpty(d.cpuManagerPolicy, "None"),
    cpuManagerPolicyOptions: d.cpuManagerPolicyOptions,
    cpuManagerReconcilePeriod: orZero(d.cpuManagerReconcilePeriod, 10 * second),
    memoryManagerPolicy: orEmpty(d.memoryManagerPolicy, "none"),
    topologyManagerPolicy: orEmpty(d.topologyManagerPolicy, "none"),
    topologyManagerScope: orEmpty(d.topologyManagerScope, "container"),
    topologyManagerPolicyOptions: d.topologyManagerPolicyOptions,
    qosReserved: d.qosReserved,
    runtimeRequestTimeout: orZero(d.runtimeRequestTimeout, 2 * minute),
    hairpinMode: orEmpty(d.hairpinMode, "promiscuous-bridge"),
    maxPods: orZero(d.maxPods, 110),
    podCIDR: d.podCIDR ?? "",
    // nil or negative means "no per-pod limit" (-1)
    podPidsLimit: d.podPidsLimit === undefined || d.podPidsLimit < 0 ? -1 : d.podPidsLimit,
    resolvConf: orNil(d.resolvConf, defaultResolvConf),
    runOnce: d.runOnce ?? false,
    cpuCFSQuota: orNil(d.cpuCFSQuota, true),
    cpuCFSQuotaPeriod: orNil(d.cpuCFSQuotaPeriod, defaultCPUCFSQuotaPeriod),
    nodeStatusMaxImages: orNil(d.nodeStatusMaxImages, 50),
    maxOpenFiles: orZero(d.maxOpenFiles, 1_000_000),
    contentType: orEmpty(d.contentType, defaultContentType),
    platformAPIQPS: orNil(d.platformAPIQPS, 5),
    platformAPIBurst: orZero(d.platformAPIBurst, 10),
    serializeImagePulls: orNil(d.serializeImagePulls, true),
    // Filled by the loader when absent; an empty map (`{}`) stays empty.
    evictionHard: orNil(d.evictionHard, defaultEvictionHard),
    evictionSoft: d.evictionSoft,
    evictionSoftGracePeriod: d.evictionSoftGracePeriod,
    evictionPressureTransitionPeriod: orZero(d.evictionPressureTransitionPeriod, 5 * minute),
    evictionMaxPodGracePeriod: d.evictionMaxPodGracePeriod ?? 0,
    evictionMinimumReclaim: d.evictionMinimumReclaim,
    podsPerCore: d.podsPerCore ?? 0,
    enableControllerAttachDetach: orNil(d.enableControllerAttachDetach, true),
    protectKernelDefaults: d.protectKernelDefaults ?? false,
    makeIPTablesUtilChains: orNil(d.makeIPTablesUtilChains, true),
    iptablesMasqueradeBit: orNil(d.iptablesMasqueradeBit, 14),
    iptablesDropBit: orNil(d.iptablesDropBit, 15),
    featureGates: d.featureGates,
    failSwapOn: orNil(d.failSwapOn, true),
    memorySwap: { swapBehavior: d.memorySwap?.swapBehavior ?? "" },
    containerLogMaxSize: orEmpty(d.containerLogMaxSize, "10Mi"),
    containerLogMaxFiles: orNil(d.containerLogMaxFiles, 5),
    configMapAndSecretChangeDetectionStrategy: orEmpty(d.configMapAndSecretChangeDetectionStrategy, "Watch"),
    systemReserved: d.systemReserved,
    platformReserved: d.platformReserved,
    reservedSystemCPUs: d.reservedSystemCPUs ?? "",
    showHiddenMetricsForVersion: d.showHiddenMetricsForVersion ?? "",
    systemReservedCgroup: d.systemReservedCgroup ?? "",
    platformReservedCgroup: d.platformReservedCgroup ?? "",
    // nil only: an explicit empty list keeps node allocatable unenforced
    enforceNodeAllocatable: orNil(d.enforceNodeAllocatable, ["pods"]),
    allowedUnsafeSysctls: d.allowedUnsafeSysctls,
    volumePluginDir: orEmpty(d.volumePluginDir, defaultVolumePluginDir),
    providerID: d.providerID ?? "",
    kernelMemcgNotification: d.kernelMemcgNotification ?? false,
    logging: defaultLogging(d.logging),
    enableSystemLogHandler: orNil(d.enableSystemLogHandler, true),
    shutdownGracePeriod: d.shutdownGracePeriod ?? 0,
    shutdownGracePeriodCriticalPods: d.shutdownGracePeriodCriticalPods ?? 0,
    shutdownGracePeriodByPodPriority: d.shutdownGracePeriodByPodPriority?.map((p) => ({
      priority: p.priority ?? 0,
      shutdownGracePeriodSeconds: p.shutdownGracePeriodSeconds ?? 0
    })),
    reservedMemory: d.reservedMemory?.map((m) => ({ numaNode: m.numaNode ?? 0, limits: m.limits ?? {} })),
    enableProfilingHandler: orNil(d.enableProfilingHandler, true),
    enableDebugFlagsHandler: orNil(d.enableDebugFlagsHandler, true),
    seccompDefault: orNil(d.seccompDefault, false),
    memoryThrottlingFactor: orNil(d.memoryThrottlingFactor, 0.8),
    registerWithTaints: d.registerWithTaints?.map((t) => ({
      key: t.key ?? "",
      value: t.value ?? "",
      effect: t.effect ?? "",
      ...(t.timeAdded !== undefined ? { timeAdded: t.timeAdded } : {})
    })),
    registerNode: orNil(d.registerNode, true),
    tracing: d.tracing,
    localStorageCapacityIsolation: orNil(d.localStorageCapacityIsolation, true)
  }
}

/** The configuration of a document that sets nothing. */
export const defaultNodeAgentConfiguration: NodeAgentConfiguration = applyDefaults({})
