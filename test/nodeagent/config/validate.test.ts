import { describe, it, expect } from "@effect/vitest"
import { Either } from "effect"
import { defaultFeatureGates, setFromMap } from "../../../src/api/FeatureGates.js"
import { makeQuantity, quantity } from "../../../src/api/go/Quantity.js"
import { defaultNodeAgentConfiguration } from "../../../simulator/nodeagent/config/defaults.js"
import type { NodeAgentConfiguration } from "../../../simulator/nodeagent/config/NodeAgentConfiguration.js"
import {
  aggregateErrors,
  parseCPUSet,
  validateNodeAgentConfiguration,
  validationError,
  validationFailureMessage
} from "../../../simulator/nodeagent/config/validate.js"

type Overrides = { -readonly [K in keyof NodeAgentConfiguration]?: NodeAgentConfiguration[K] }
const errorsOf = (o: Overrides) => validateNodeAgentConfiguration({ ...defaultNodeAgentConfiguration, ...o })
const ic = (m: string) => `invalid configuration: ${m}`
const logging = (l: Partial<NodeAgentConfiguration["logging"]>) => ({ ...defaultNodeAgentConfiguration.logging, ...l })

describe("validation (ValidateKubeletConfiguration)", () => {
  it("accepts the defaults", () => {
    expect(errorsOf({})).toStrictEqual([])
    expect(validationError(defaultNodeAgentConfiguration)).toBeUndefined()
  })

  it("nodeLeaseDurationSeconds", () => {
    expect(errorsOf({ nodeLeaseDurationSeconds: 0 })).toStrictEqual([ic("nodeLeaseDurationSeconds must be greater than 0")])
    expect(errorsOf({ nodeLeaseDurationSeconds: -1 })).toStrictEqual([ic("nodeLeaseDurationSeconds must be greater than 0")])
  })

  it("cgroups", () => {
    expect(errorsOf({ cgroupsPerQOS: false })).toStrictEqual([
      ic("enforceNodeAllocatable (--enforce-node-allocatable) is not supported unless cgroupsPerQOS (--cgroups-per-qos) is set to true")
    ])
    expect(errorsOf({ cgroupsPerQOS: false, enforceNodeAllocatable: [] })).toStrictEqual([])
    expect(errorsOf({ systemCgroups: "/system" })).toStrictEqual([
      ic("systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified")
    ])
    expect(errorsOf({ systemCgroups: "/system", cgroupRoot: "/" })).toStrictEqual([])
  })

  it("event rates", () => {
    expect(errorsOf({ eventBurst: -1, eventRecordQPS: -2 })).toStrictEqual([
      ic("eventBurst (--event-burst) -1 must not be a negative number"),
      ic("eventRecordQPS (--event-qps) -2 must not be a negative number")
    ])
  })

  it("healthzPort", () => {
    expect(errorsOf({ healthzPort: 0 })).toStrictEqual([])
    expect(errorsOf({ healthzPort: 65536 })).toStrictEqual([ic("healthzPort (--healthz-port) 65536 must be between 1 and 65535, inclusive")])
    expect(errorsOf({ healthzPort: -1 })).toStrictEqual([ic("healthzPort (--healthz-port) -1 must be between 1 and 65535, inclusive")])
  })

  it("cpuCFSQuotaPeriod and gate CustomCPUCFSQuotaPeriod", () => {
    expect(errorsOf({ cpuCFSQuotaPeriod: 200 })).toStrictEqual([
      ic("cpuCFSQuotaPeriod (--cpu-cfs-quota-period) 200ms requires feature gate CustomCPUCFSQuotaPeriod")
    ])
    const on = { featureGates: { CustomCPUCFSQuotaPeriod: true } }
    expect(errorsOf({ ...on, cpuCFSQuotaPeriod: 200 })).toStrictEqual([])
    expect(errorsOf({ ...on, cpuCFSQuotaPeriod: 1 })).toStrictEqual([])
    expect(errorsOf({ ...on, cpuCFSQuotaPeriod: 1000 })).toStrictEqual([])
    expect(errorsOf({ ...on, cpuCFSQuotaPeriod: 2000 })).toStrictEqual([
      ic("cpuCFSQuotaPeriod (--cpu-cfs-quota-period) 2s must be between 1ms and 1sec, inclusive")
    ])
    expect(errorsOf({ ...on, cpuCFSQuotaPeriod: 0.5 })).toStrictEqual([
      ic("cpuCFSQuotaPeriod (--cpu-cfs-quota-period) 500µs must be between 1ms and 1sec, inclusive")
    ])
  })

  it("image garbage collection thresholds", () => {
    expect(errorsOf({ imageGCHighThresholdPercent: 101 })).toStrictEqual([
      ic("imageGCHighThresholdPercent (--image-gc-high-threshold) 101 must be between 0 and 100, inclusive")
    ])
    expect(errorsOf({ imageGCLowThresholdPercent: -1 })).toStrictEqual([
      ic("imageGCLowThresholdPercent (--image-gc-low-threshold) -1 must be between 0 and 100, inclusive")
    ])
    expect(errorsOf({ imageGCLowThresholdPercent: 85 })).toStrictEqual([
      ic("imageGCLowThresholdPercent (--image-gc-low-threshold) 85 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 85")
    ])
  })

  it("iptables bits", () => {
    expect(errorsOf({ iptablesDropBit: 32, iptablesMasqueradeBit: -1 })).toStrictEqual([
      ic("iptablesDropBit (--iptables-drop-bit) 32 must be between 0 and 31, inclusive"),
      ic("iptablesMasqueradeBit (--iptables-masquerade-bit) -1 must be between 0 and 31, inclusive")
    ])
  })

  it("negative numbers", () => {
    expect(
      errorsOf({
        platformAPIBurst: -1,
        platformAPIQPS: -2,
        maxOpenFiles: -3,
        maxPods: -4,
        podsPerCore: -5,
        registryBurst: -6,
        registryPullQPS: -7
      })
    ).toStrictEqual([
      ic("platformAPIBurst (--platform-api-burst) -1 must not be a negative number"),
      ic("platformAPIQPS (--platform-api-qps) -2 must not be a negative number"),
      ic("maxOpenFiles (--max-open-files) -3 must not be a negative number"),
      ic("maxPods (--max-pods) -4 must not be a negative number"),
      ic("podsPerCore (--pods-per-core) -5 must not be a negative number"),
      ic("registryBurst (--registry-burst) -6 must not be a negative number"),
      ic("registryPullQPS (--registry-qps) -7 must not be a negative number")
    ])
  })

  it("podsPerCore may not exceed maxPods (spec rule)", () => {
    expect(errorsOf({ podsPerCore: 10, maxPods: 10 })).toStrictEqual([])
    expect(errorsOf({ podsPerCore: 11, maxPods: 10 })).toStrictEqual([
      ic("podsPerCore (--pods-per-core) 11 must not exceed maxPods (--max-pods) 10")
    ])
  })

  it("nodeStatusMaxImages and oomScoreAdj", () => {
    expect(errorsOf({ nodeStatusMaxImages: -1 })).toStrictEqual([])
    expect(errorsOf({ nodeStatusMaxImages: -2 })).toStrictEqual([
      ic("nodeStatusMaxImages (--node-status-max-images) -2 must be -1 or greater")
    ])
    expect(errorsOf({ oomScoreAdj: 1001 })).toStrictEqual([
      ic("oomScoreAdj (--oom-score-adj) 1001 must be between -1000 and 1000, inclusive")
    ])
    expect(errorsOf({ oomScoreAdj: -1000 })).toStrictEqual([])
  })

  it("ports", () => {
    expect(errorsOf({ port: 0 })).toStrictEqual([ic("port (--port) 0 must be between 1 and 65535, inclusive")])
    expect(errorsOf({ port: 65536 })).toStrictEqual([ic("port (--port) 65536 must be between 1 and 65535, inclusive")])
    expect(errorsOf({ readOnlyPort: 10255 })).toStrictEqual([])
    expect(errorsOf({ readOnlyPort: 70000 })).toStrictEqual([
      ic("readOnlyPort (--read-only-port) 70000 must be between 0 and 65535, inclusive")
    ])
  })

  it("serverTLSBootstrap needs RotateNodeAgentServerCertificate", () => {
    expect(errorsOf({ serverTLSBootstrap: true })).toStrictEqual([])
    expect(errorsOf({ serverTLSBootstrap: true, featureGates: { RotateNodeAgentServerCertificate: false } })).toStrictEqual([
      ic("serverTLSBootstrap true requires feature gate RotateNodeAgentServerCertificate")
    ])
  })

  it("topology manager", () => {
    const off = { featureGates: { TopologyManager: false } }
    expect(errorsOf({ topologyManagerPolicy: "restricted", topologyManagerScope: "pod" })).toStrictEqual([])
    expect(errorsOf({ ...off, topologyManagerPolicy: "restricted", topologyManagerScope: "pod" })).toStrictEqual([
      ic("topologyManagerPolicy restricted requires feature gate TopologyManager"),
      ic("topologyManagerScope pod requires feature gate TopologyManager")
    ])
    expect(errorsOf({ ...off })).toStrictEqual([])
    expect(errorsOf({ topologyManagerPolicy: "strict", topologyManagerScope: "node" })).toStrictEqual([
      ic('topologyManagerPolicy (--topology-manager-policy) "strict" must be one of: ["none" "best-effort" "restricted" "single-numa-node"]'),
      ic('topologyManagerScope (--topology-manager-scope) "node" must be one of: "container", or "pod"')
    ])
  })

  it("registerWithTaints", () => {
    expect(errorsOf({ registerWithTaints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] })).toStrictEqual([])
    expect(errorsOf({ registerWithTaints: [{ key: "example.com/a", value: "", effect: "" }] })).toStrictEqual([])
    expect(
      errorsOf({
        registerWithTaints: [
          { key: "bad key", value: "v", effect: "NoSchedule" },
          { key: "k", value: "-bad-", effect: "NoExecute" },
          { key: "k", value: "v", effect: "Sometimes" },
          { key: "/k", value: "", effect: "" },
          { key: "k", value: "v", effect: "NoSchedule", timeAdded: "2023-01-02T03:04:05Z" }
        ]
      })
    ).toStrictEqual([
      "invalid taint: {bad key v NoSchedule <nil>}",
      "invalid taint: {k -bad- NoExecute <nil>}",
      "invalid taint: {k v Sometimes <nil>}",
      "invalid taint: {/k   <nil>}",
      ic("taint.TimeAdded is not nil")
    ])
  })

  it("graceful node shutdown, gate on", () => {
    expect(errorsOf({ shutdownGracePeriod: 30_000, shutdownGracePeriodCriticalPods: 10_000 })).toStrictEqual([])
    expect(errorsOf({ shutdownGracePeriod: 10_000, shutdownGracePeriodCriticalPods: 30_000 })).toStrictEqual([
      ic("shutdownGracePeriodCriticalPods 30s must be <= shutdownGracePeriod 10s")
    ])
    expect(errorsOf({ shutdownGracePeriod: 500, shutdownGracePeriodCriticalPods: 0 })).toStrictEqual([
      ic("shutdownGracePeriod 500ms must be either zero or otherwise >= 1 sec")
    ])
    expect(errorsOf({ shutdownGracePeriod: -1000, shutdownGracePeriodCriticalPods: -2000 })).toStrictEqual([
      ic("shutdownGracePeriod -1s must be either zero or otherwise >= 1 sec"),
      ic("shutdownGracePeriodCriticalPods -2s must be either zero or otherwise >= 1 sec")
    ])
  })

  it("graceful node shutdown, gate off", () => {
    expect(errorsOf({ shutdownGracePeriod: 30_000, featureGates: { GracefulNodeShutdown: false } })).toStrictEqual([
      ic("specifying shutdownGracePeriod or shutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown")
    ])
  })

  it("shutdownGracePeriodByPodPriority", () => {
    const list = [{ priority: 100, shutdownGracePeriodSeconds: 30 }]
    expect(errorsOf({ shutdownGracePeriodByPodPriority: list })).toStrictEqual([])
    expect(errorsOf({ shutdownGracePeriodByPodPriority: list, shutdownGracePeriod: 30_000 })).toStrictEqual([
      ic("Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time")
    ])
    expect(
      errorsOf({ shutdownGracePeriodByPodPriority: list, featureGates: { GracefulNodeShutdownBasedOnPodPriority: false } })
    ).toStrictEqual([ic("Specifying shutdownGracePeriodByPodPriority requires feature gate GracefulNodeShutdownBasedOnPodPriority")])
  })

  it("memorySwap", () => {
    expect(errorsOf({ memorySwap: { swapBehavior: "LimitedSwap" } })).toStrictEqual([
      ic("memorySwap.swapBehavior cannot be set when NodeSwap feature flag is disabled")
    ])
    const on = { featureGates: { NodeSwap: true } }
    expect(errorsOf({ ...on, memorySwap: { swapBehavior: "UnlimitedSwap" } })).toStrictEqual([])
    expect(errorsOf({ ...on, memorySwap: { swapBehavior: "Always" } })).toStrictEqual([
      ic('memorySwap.swapBehavior "Always" must be one of: "", "LimitedSwap", or "UnlimitedSwap"')
    ])
  })

  it("enforceNodeAllocatable values", () => {
    expect(
      errorsOf({ enforceNodeAllocatable: ["pods", "system-reserved", "platform-reserved"], systemReservedCgroup: "/s", platformReservedCgroup: "/p" })
    ).toStrictEqual([])
    expect(errorsOf({ enforceNodeAllocatable: ["system-reserved", "platform-reserved"] })).toStrictEqual([
      ic('systemReservedCgroup (--system-reserved-cgroup) must be specified when "system-reserved" contained in enforceNodeAllocatable (--enforce-node-allocatable)'),
      ic('platformReservedCgroup (--platform-reserved-cgroup) must be specified when "platform-reserved" contained in enforceNodeAllocatable (--enforce-node-allocatable)')
    ])
    expect(errorsOf({ enforceNodeAllocatable: ["none"] })).toStrictEqual([])
    expect(errorsOf({ enforceNodeAllocatable: ["none", "pods"] })).toStrictEqual([
      ic('enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when "none" is specified')
    ])
    expect(errorsOf({ enforceNodeAllocatable: ["everything"] })).toStrictEqual([
      ic('option "everything" specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are "pods", "system-reserved", "platform-reserved", or "none"')
    ])
  })

  it("hairpinMode", () => {
    expect(errorsOf({ hairpinMode: "hairpin-veth" })).toStrictEqual([])
    expect(errorsOf({ hairpinMode: "bridge" })).toStrictEqual([
      ic('option "bridge" specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"')
    ])
  })

  it("reservedSystemCPUs", () => {
    expect(errorsOf({ reservedSystemCPUs: "0-1,4" })).toStrictEqual([])
    expect(errorsOf({ reservedSystemCPUs: "0", systemReservedCgroup: "/system" })).toStrictEqual([
      ic("can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or platformReservedCgroup (--platform-reserved-cgroup)")
    ])
    expect(errorsOf({ reservedSystemCPUs: "a" })).toStrictEqual([
      ic('unable to parse reservedSystemCPUs (--reserved-cpus) a, error: strconv.Atoi: parsing "a": invalid syntax')
    ])
    expect(errorsOf({ reservedSystemCPUs: "3-1" })).toStrictEqual([
      ic('unable to parse reservedSystemCPUs (--reserved-cpus) 3-1, error: invalid range "3-1" (3 >= 1)')
    ])
  })

  it("reservedMemory", () => {
    expect(
      errorsOf({ reservedMemory: [{ numaNode: 0, limits: { memory: quantity("1Gi"), "hugepages-2Mi": quantity("2Mi") } }] })
    ).toStrictEqual([])
    expect(
      errorsOf({
        reservedMemory: [
          { numaNode: 0, limits: { cpu: quantity("1") } },
          { numaNode: 1, limits: { memory: makeQuantity(0) } },
          { numaNode: 2, limits: { memory: quantity("1Gi") } },
          { numaNode: 2, limits: { memory: quantity("2Gi") } }
        ]
      })
    ).toStrictEqual([
      ic('the limit type "cpu" for NUMA node 0 is not supported, only [memory hugepages-<HugePageSize>] is accepted'),
      ic('reserved memory may not be zero for NUMA node 1 and resource "memory"'),
      ic('the reserved memory has a duplicate value for NUMA node 2 and resource "memory"')
    ])
  })

  it("showHiddenMetricsForVersion", () => {
    expect(errorsOf({ showHiddenMetricsForVersion: "1.25" })).toStrictEqual([])
    expect(errorsOf({ showHiddenMetricsForVersion: "1.24" })).toStrictEqual([
      "--show-hidden-metrics-for-version must be omitted or have the value '1.25'. Only the previous minor version is allowed"
    ])
  })

  it("logging (field errors, no prefix)", () => {
    expect(errorsOf({ logging: logging({ format: "json" }) })).toStrictEqual([])
    expect(errorsOf({ logging: logging({ format: "x" }) })).toStrictEqual(['logging.format: Invalid value: "x": Unsupported log format'])
    expect(errorsOf({ logging: logging({ format: "json" }), featureGates: { LoggingBetaOptions: false } })).toStrictEqual([
      "logging.format: Forbidden: Log format json is disabled, see LoggingBetaOptions feature"
    ])
    expect(errorsOf({ logging: logging({ verbosity: 2 ** 31 }) })).toStrictEqual([
      "logging.verbosity: Invalid value: 2147483648: Must be <= 2147483647"
    ])
    expect(
      errorsOf({
        logging: logging({
          vmodule: [
            { filePattern: "", verbosity: 1 },
            { filePattern: "a=b", verbosity: 2 ** 31 }
          ]
        })
      })
    ).toStrictEqual([
      "logging.vmodule[0]: Required value: File pattern must not be empty",
      'logging.vmodule[1]: Invalid value: "a=b": File pattern must not contain equal sign or comma',
      "logging.vmodule[1]: Invalid value: 2147483648: Must be <= 2147483647"
    ])
    expect(errorsOf({ logging: logging({ format: "json", vmodule: [{ filePattern: "x", verbosity: 1 }] }) })).toStrictEqual([
      "logging.vmodule: Forbidden: Only supported for text log format"
    ])
    const alphaOptions = logging({ options: { json: { splitStream: true, infoBufferSize: quantity("1Mi") } } })
    expect(errorsOf({ logging: alphaOptions })).toStrictEqual([
      "logging.options.json.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled",
      "logging.options.json.infoBufferSize: Forbidden: Feature LoggingAlphaOptions is disabled"
    ])
    expect(errorsOf({ logging: alphaOptions, featureGates: { LoggingAlphaOptions: true } })).toStrictEqual([])
  })

  it("tracing", () => {
    expect(errorsOf({ tracing: { endpoint: "localhost:4317" } })).toStrictEqual([
      ic("tracing should not be configured if NodeAgentTracing feature flag is disabled.")
    ])
    const on = { featureGates: { NodeAgentTracing: true } }
    expect(errorsOf({ ...on, tracing: { samplingRatePerMillion: 100 } })).toStrictEqual([])
    expect(errorsOf({ ...on, tracing: { samplingRatePerMillion: -1 } })).toStrictEqual([
      "tracing.samplingRatePerMillion: Invalid value: -1: sampling rate must be positive"
    ])
    expect(errorsOf({ ...on, tracing: { samplingRatePerMillion: 1_000_001 } })).toStrictEqual([
      "tracing.samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million"
    ])
  })

  it("memoryThrottlingFactor", () => {
    expect(errorsOf({ memoryThrottlingFactor: undefined, featureGates: { MemoryQoS: true } })).toStrictEqual([
      ic("memoryThrottlingFactor is required when MemoryQoS feature flag is enabled")
    ])
    expect(errorsOf({ memoryThrottlingFactor: undefined })).toStrictEqual([])
    expect(errorsOf({ memoryThrottlingFactor: 1 })).toStrictEqual([])
    expect(errorsOf({ memoryThrottlingFactor: 0 })).toStrictEqual([
      ic("memoryThrottlingFactor 0 must be greater than 0 and less than or equal to 1.0")
    ])
    expect(errorsOf({ memoryThrottlingFactor: 1.5 })).toStrictEqual([
      ic("memoryThrottlingFactor 1.5 must be greater than 0 and less than or equal to 1.0")
    ])
  })

  it("returns a feature gate error alone", () => {
    expect(errorsOf({ featureGates: { NoSuchGate: true }, port: 0, maxPods: -1 })).toStrictEqual([
      "unrecognized feature gate: NoSuchGate"
    ])
    expect(errorsOf({ featureGates: { CPUManager: false }, port: 0 })).toStrictEqual([
      "cannot set feature gate CPUManager to false, feature is locked to true"
    ])
  })

  it("applies the document's gates over the process gates", () => {
    const process = Either.getOrThrow(setFromMap(defaultFeatureGates, { TopologyManager: false }))
    const c = { ...defaultNodeAgentConfiguration, topologyManagerPolicy: "restricted" }
    expect(validateNodeAgentConfiguration(c, process)).toStrictEqual([
      ic("topologyManagerPolicy restricted requires feature gate TopologyManager")
    ])
    expect(validateNodeAgentConfiguration({ ...c, featureGates: { TopologyManager: true } }, process)).toStrictEqual([])
  })
})

describe("aggregation (ValidateKubeletConfiguration)", () => {
  it("prints one error as itself and several in brackets, without repeats", () => {
    expect(aggregateErrors([])).toBe("")
    expect(aggregateErrors(["a"])).toBe("a")
    expect(aggregateErrors(["a", "b", "a"])).toBe("[a, b]")
    expect(aggregateErrors(["a", "a"])).toBe("a")
    expect(validationError({ ...defaultNodeAgentConfiguration, port: 0 })).toBe(
      ic("port (--port) 0 must be between 1 and 65535, inclusive")
    )
    expect(validationError({ ...defaultNodeAgentConfiguration, port: 0, nodeLeaseDurationSeconds: 0 })).toBe(
      `[${ic("nodeLeaseDurationSeconds must be greater than 0")}, ${ic("port (--port) 0 must be between 1 and 65535, inclusive")}]`
    )
    expect(validationFailureMessage("a", "/etc/na.yaml")).toBe(
      "failed to validate node agent configuration, error: a, path: /etc/na.yaml"
    )
    // the enforcement list may repeat "none": the same message twice prints once
    expect(validationError({ ...defaultNodeAgentConfiguration, enforceNodeAllocatable: ["none", "none"] })).toBe(
      ic('enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when "none" is specified')
    )
  })
})

describe("helpers", () => {
  it("parses CPU lists", () => {
    expect(parseCPUSet("")).toStrictEqual(Either.right([]))
    expect(parseCPUSet("0-2,5,4")).toStrictEqual(Either.right([0, 1, 2, 4, 5]))
    expect(parseCPUSet("1-1")).toStrictEqual(Either.right([1]))
    expect(parseCPUSet("-1")).toStrictEqual(Either.left('strconv.Atoi: parsing "": invalid syntax'))
    expect(parseCPUSet("0,,1")).toStrictEqual(Either.left('strconv.Atoi: parsing "": invalid syntax'))
    expect(parseCPUSet("99999999999999999999")).toStrictEqual(
      Either.left('strconv.Atoi: parsing "99999999999999999999": value out of range')
    )
  })
})
