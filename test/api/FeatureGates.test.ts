import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import {
  defaultFeatureGates,
  type FeatureGates,
  knownFeatures,
  knownFeaturesHelp,
  parseFeatureGatesFlag,
  parseGoBool,
  setFromMap,
  warningsFor
} from "../../src/api/FeatureGates.js"

// Spec 001 "Feature gates", written out independently of the implementation.
const specBetaOn = `APIListChunking, APIPriorityAndFairness, APIResponseCompression, APIServerIdentity, AnyVolumeDataSource, AppArmor, CPUManagerPolicyBetaOptions, CPUManagerPolicyOptions, CronJobTimeZone, CustomResourceValidationExpressions, DownwardAPIHugePages, ExpandedDNSConfig, GRPCContainerProbe, GracefulNodeShutdown, GracefulNodeShutdownBasedOnPodPriority, JobMutableNodeSchedulingDirectives, JobPodFailurePolicy, JobReadyPods, NodeAgentPodResources, NodeAgentPodResourcesGetAllocatable, LogarithmicScaleDown, LoggingBetaOptions, MemoryManager, NodeInclusionPolicyInPodTopologySpread, NodeOutOfServiceVolumeDetach, OpenAPIEnums, OpenAPIV3, PodDeletionCost, PodDisruptionConditions, ProbeTerminationGracePeriod, ProxyTerminatingEndpoints, RemainingItemCount, RetroactiveDefaultStorageClass, RotateNodeAgentServerCertificate, SeccompDefault, ServerSideFieldValidation, SizeMemoryBackedVolumes, StorageVersionHash, TopologyAwareHints, TopologyManager, WinOverlay`
const specBetaOff = `AllBeta, CSIMigrationPortworx, ExperimentalHostUserNamespaceDefaulting, MinDomainsInPodTopologySpread, TopologyManagerPolicyBetaOptions`
const specAlphaOn = `WindowsHostNetwork`
const specAlphaOff = `APISelfSubjectReview, APIServerTracing, AggregatedDiscoveryEndpoint, AllAlpha, CPUManagerPolicyAlphaOptions, CSIMigrationRBD, CSINodeExpandSecret, CSIVolumeHealth, ComponentSLIs, ContainerCheckpoint, ContextualLogging, CrossNamespaceVolumeDataSource, CustomCPUCFSQuotaPeriod, DisableCloudProviders, DisableNodeAgentCloudCredentialProviders, DynamicResourceAllocation, EventedPLEG, HPAContainerMetrics, HPAScaleToZero, HonorPVReclaimPolicy, IPTablesOwnershipCleanup, InTreePluginAWSUnregister, InTreePluginAzureDiskUnregister, InTreePluginAzureFileUnregister, InTreePluginGCEUnregister, InTreePluginOpenStackUnregister, InTreePluginPortworxUnregister, InTreePluginRBDUnregister, InTreePluginvSphereUnregister, KMSv2, NodeAgentInUserNamespace, NodeAgentTracing, LegacyServiceAccountTokenTracking, LocalStorageCapacityIsolationFSQuotaMonitoring, LoggingAlphaOptions, MatchLabelKeysInPodTopologySpread, MaxUnavailableStatefulSet, MemoryQoS, MinimizeIPTablesRestore, MultiCIDRRangeAllocator, NetworkPolicyStatus, NodeSwap, PDBUnhealthyPodEvictionPolicy, PodAndContainerStatsFromCRI, PodHasNetworkCondition, PodSchedulingReadiness, ProcMountType, QOSReserved, ReadWriteOncePod, RecoverVolumeExpansionFailure, SELinuxMountReadWriteOncePod, StatefulSetAutoDeletePVC, StatefulSetStartOrdinal, StorageVersionAPI, TopologyManagerPolicyAlphaOptions, TopologyManagerPolicyOptions, UserNamespacesStatelessPodsSupport, ValidatingAdmissionPolicy, VolumeCapacityPriority, WinDSR`
const names = (list: string) => list.split(",").map((s) => s.trim())
/** Later releases' gates the simulated API server honours (alpha, off). */
const laterAlphaOff = ["WatchList"]
const locked = ["CPUManager", "LocalStorageCapacityIsolation", "NodeAgentCredentialProviders"]

const right = <A, E>(e: Either.Either<A, E>): A => {
  if (Either.isLeft(e)) throw new Error(`expected Right, got Left: ${JSON.stringify(e.left)}`)
  return e.right
}
const leftMessage = <A>(e: Either.Either<A, { readonly message: string }>): string => {
  if (Either.isRight(e)) throw new Error("expected Left, got Right")
  return e.left.message
}
const flag = (value: string, gates: FeatureGates = defaultFeatureGates) => parseFeatureGatesFlag(gates, value)

describe("FeatureGates registry (spec 001 list, plus WatchList)", () => {
  it("holds every gate of the spec with its maturity and default, plus the three locked GA gates", () => {
    const expected = [
      ...names(specBetaOn).map((n) => [n, "Beta", true] as const),
      ...names(specBetaOff).map((n) => [n, "Beta", false] as const),
      ...names(specAlphaOn).map((n) => [n, "Alpha", true] as const),
      ...names(specAlphaOff).map((n) => [n, "Alpha", false] as const),
      ...laterAlphaOff.map((n) => [n, "Alpha", false] as const),
      ...locked.map((n) => [n, "GA", true] as const)
    ]
    expect(expected).toHaveLength(41 + 5 + 1 + 60 + 1 + 3)
    for (const [name, preRelease, def] of expected) {
      expect(knownFeatures.get(name), name).toEqual({ name, default: def, preRelease, lockToDefault: preRelease === "GA" })
    }
    expect(knownFeatures.size).toBe(expected.length)
  })

  it("answers defaults for every gate when nothing is set", () => {
    for (const f of knownFeatures.values()) expect(defaultFeatureGates.enabled(f.name), f.name).toBe(f.default)
    expect(defaultFeatureGates.enabled("TopologyManager")).toBe(true)
    expect(defaultFeatureGates.enabled("NodeSwap")).toBe(false)
    expect(defaultFeatureGates.enabled("WindowsHostNetwork")).toBe(true)
    expect(defaultFeatureGates.enabled("CPUManager")).toBe(true)
    expect(defaultFeatureGates.toString()).toBe("")
  })

  it("treats an unregistered name as a programming error", () => {
    expect(() => defaultFeatureGates.enabled("NoSuchGate")).toThrow(
      'feature "NoSuchGate" is not registered in FeatureGate "default"'
    )
  })

  it("lists only alpha and beta gates in help, sorted, in upstream's format", () => {
    const help = knownFeaturesHelp()
    expect(help).toContain("AllAlpha=true|false (ALPHA - default=false)")
    expect(help).toContain("AllBeta=true|false (BETA - default=false)")
    expect(help).toContain("WindowsHostNetwork=true|false (ALPHA - default=true)")
    expect(help).toContain("TopologyManager=true|false (BETA - default=true)")
    expect(help.some((l) => l.startsWith("CPUManager="))).toBe(false)
    expect(help).toHaveLength(knownFeatures.size - 3)
    expect([...help].sort()).toEqual(help)
  })
})

describe("parseFeatureGatesFlag", () => {
  it("parses pairs with spaces and skips empty items", () => {
    const g = right(flag(" NodeSwap = true,,TopologyManager=false,"))
    expect(g.enabled("NodeSwap")).toBe(true)
    expect(g.enabled("TopologyManager")).toBe(false)
    expect(g.toString()).toBe("NodeSwap=true,TopologyManager=false")
    // Only empty items are skipped: a blank one is a key without a value (upstream too).
    expect(leftMessage(flag("NodeSwap=true, ,"))).toBe("missing bool value for ")
  })

  it("accepts exactly Go's bool spellings", () => {
    for (const t of ["1", "t", "T", "TRUE", "true", "True"]) expect(right(flag(`NodeSwap=${t}`)).enabled("NodeSwap")).toBe(true)
    for (const f of ["0", "f", "F", "FALSE", "false", "False"]) {
      expect(right(flag(`TopologyManager=${f}`)).enabled("TopologyManager")).toBe(false)
    }
    for (const bad of ["yes", "tRUE", "on", ""]) expect(Either.isLeft(parseGoBool(bad)), bad).toBe(true)
  })

  it("reports a missing value", () => {
    expect(leftMessage(flag("NodeSwap"))).toBe("missing bool value for NodeSwap")
    expect(leftMessage(flag("MemoryQoS=true, NodeSwap "))).toBe("missing bool value for NodeSwap")
  })

  it("reports an unparsable value with strconv's text", () => {
    expect(leftMessage(flag("NodeSwap=yes"))).toBe(
      'invalid value of NodeSwap=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'
    )
    expect(leftMessage(flag("NodeSwap="))).toBe('invalid value of NodeSwap=, err: strconv.ParseBool: parsing "": invalid syntax')
  })

  it("reports an unknown gate", () => {
    expect(leftMessage(flag("Foo=true"))).toBe("unrecognized feature gate: Foo")
  })

  it("accumulates over several occurrences, the later value winning", () => {
    const g = right(flag("NodeSwap=false", right(flag("NodeSwap=true,MemoryQoS=true"))))
    expect(g.enabled("NodeSwap")).toBe(false)
    expect(g.enabled("MemoryQoS")).toBe(true)
  })
})

describe("setFromMap", () => {
  it("refuses to move a locked gate off its default and allows setting it to the default", () => {
    for (const name of locked) {
      expect(leftMessage(setFromMap(defaultFeatureGates, { [name]: false }))).toBe(
        `cannot set feature gate ${name} to false, feature is locked to true`
      )
      expect(right(setFromMap(defaultFeatureGates, { [name]: true })).enabled(name)).toBe(true)
    }
  })

  it("is all-or-nothing: the first error aborts and nothing is stored", () => {
    const before = right(flag("NodeSwap=true"))
    const result = setFromMap(before, { MemoryQoS: true, Foo: true, TopologyManager: false })
    expect(leftMessage(result)).toBe("unrecognized feature gate: Foo")
    expect(before.toString()).toBe("NodeSwap=true")
    expect(before.enabled("MemoryQoS")).toBe(false)
    expect(leftMessage(flag("MemoryQoS=true,CPUManager=false"))).toBe(
      "cannot set feature gate CPUManager to false, feature is locked to true"
    )
  })

  it("AllAlpha sets every alpha gate not set explicitly, whichever order the keys come in", () => {
    for (const text of ["AllAlpha=true,NodeSwap=false", "NodeSwap=false,AllAlpha=true"]) {
      const g = right(flag(text))
      expect(g.enabled("NodeSwap"), text).toBe(false)
      expect(g.enabled("MemoryQoS"), text).toBe(true)
      expect(g.enabled("InTreePluginRBDUnregister"), text).toBe(true)
      expect(g.enabled("TopologyManagerPolicyBetaOptions"), text).toBe(false) // beta untouched
      expect(g.enabled("TopologyManager"), text).toBe(true)
    }
    // Across occurrences too: an explicit key given before or after AllAlpha keeps its value.
    expect(right(flag("NodeSwap=false", right(flag("AllAlpha=true")))).enabled("NodeSwap")).toBe(false)
    expect(right(flag("AllAlpha=true", right(flag("NodeSwap=false")))).enabled("NodeSwap")).toBe(false)
    // AllAlpha=false turns off the alpha gate that defaults on.
    expect(right(flag("AllAlpha=false")).enabled("WindowsHostNetwork")).toBe(false)
  })

  it("AllBeta=false turns off default-on betas, explicit keys still win; GA gates are untouched", () => {
    const g = right(flag("TopologyManager=true,AllBeta=false"))
    expect(g.enabled("TopologyManager")).toBe(true)
    expect(g.enabled("GracefulNodeShutdown")).toBe(false)
    expect(g.enabled("PodDisruptionConditions")).toBe(false)
    expect(g.enabled("NodeSwap")).toBe(false)
    expect(g.enabled("CPUManager")).toBe(true)
    const on = right(flag("AllBeta=true"))
    expect(on.enabled("MinDomainsInPodTopologySpread")).toBe(true)
    expect(on.enabled("MemoryQoS")).toBe(false)
  })

  it("stores what the special gates spread, so String() lists them like upstream", () => {
    const g = right(flag("AllAlpha=true"))
    expect(g.toString().split(",")).toContain("NodeSwap=true")
    expect(g.toString().split(",")).toContain("AllAlpha=true")
    expect(g.toString().split(",")).not.toContain("TopologyManager=true")
  })
})

describe("warningsFor", () => {
  it("warns for GA gates only", () => {
    expect(warningsFor({ CPUManager: true, NodeSwap: true, Foo: true })).toEqual([
      "Setting GA feature gate CPUManager=true. It will be removed in a future release."
    ])
    expect(warningsFor({ NodeSwap: true })).toEqual([])
  })
})
