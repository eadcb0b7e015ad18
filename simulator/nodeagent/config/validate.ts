/**
 * Validation of a defaulted configuration (upstream `ValidateKubeletConfiguration`).
 *
 * The process gates are copied and the document's `featureGates` applied first; an error there is the
 * only error reported. Every other check runs and the messages accumulate in upstream's order;
 * `aggregateErrors` prints them as upstream's aggregate does.
 */
import { Either } from "effect"
import { defaultFeatureGates, type FeatureGates, setFromMap } from "../../../src/api/FeatureGates.js"
import { forbidden, formatFieldError, type FieldError, GoTime, formatGoValue, invalid, required } from "../../../src/api/FieldError.js"
import { goQuote } from "../../../src/api/go/Quote.js"
import { formatDuration } from "../../../src/api/go/Duration.js"
import { formatGoFloat } from "../../../src/api/go/Strconv.js"
import { isQualifiedName, isValidLabelValue } from "../../../src/api/kinds/Names.js"
import { defaultCPUCFSQuotaPeriod } from "./defaults.js"
import type { NodeAgentConfiguration, Taint } from "./NodeAgentConfiguration.js"

/** The release the simulator reproduces; `showHiddenMetricsForVersion` may only name the one before. */
export const currentVersion = { major: 1, minor: 26 } as const

const maxInt32 = 2 ** 31 - 1

/** One error prints as itself, several as `[e1, e2]` with repeats removed; none as "". */
export const aggregateErrors = (errors: ReadonlyArray<string>): string => {
  if (errors.length === 0) return ""
  if (errors.length === 1) return errors[0]!
  const unique = [...new Set(errors)]
  return unique.length === 1 ? unique[0]! : `[${unique.join(", ")}]`
}

// ---- label and taint syntax (apimachinery util/validation) ----

const taintEffects = ["NoSchedule", "PreferNoSchedule", "NoExecute"]

const isValidTaint = (t: Taint): boolean =>
  isQualifiedName(t.key).length === 0 && (t.value === "" || isValidLabelValue(t.value).length === 0) && (t.effect === "" || taintEffects.includes(t.effect))

/** Go's `%v` of a core/v1 Taint value: `{key value NoSchedule <nil>}`. */
const goTaint = (t: Taint): string =>
  `{${t.key} ${t.value} ${t.effect} ${t.timeAdded === undefined ? "<nil>" : formatGoValue(new GoTime(t.timeAdded))}}`

// ---- CPU lists (`0-3,7`), upstream cpuset.Parse with strconv.Atoi errors ----

const atoi = (s: string): Either.Either<number, string> => {
  if (!/^[+-]?[0-9]+$/.test(s)) return Either.left(`strconv.Atoi: parsing ${goQuote(s)}: invalid syntax`)
  const n = BigInt(s)
  if (n > (1n << 63n) - 1n || n < -(1n << 63n)) return Either.left(`strconv.Atoi: parsing ${goQuote(s)}: value out of range`)
  return Either.right(Number(n))
}

/** Parses a CPU list; returns the CPUs in ascending order. */
export const parseCPUSet = (s: string): Either.Either<ReadonlyArray<number>, string> => {
  const cpus = new Set<number>()
  if (s === "") return Either.right([])
  for (const r of s.split(",")) {
    const dash = r.indexOf("-")
    if (dash < 0) {
      const elem = atoi(r)
      if (Either.isLeft(elem)) return Either.left(elem.left)
      cpus.add(elem.right)
      continue
    }
    const start = atoi(r.slice(0, dash))
    if (Either.isLeft(start)) return Either.left(start.left)
    const end = atoi(r.slice(dash + 1))
    if (Either.isLeft(end)) return Either.left(end.left)
    if (start.right > end.right) return Either.left(`invalid range ${goQuote(r)} (${start.right} >= ${end.right})`)
    for (let c = start.right; c <= end.right; c++) cpus.add(c)
  }
  return Either.right([...cpus].sort((a, b) => a - b))
}

// ---- component validators whose errors are field errors (printed without the prefix) ----

const validateLogging = (kc: NodeAgentConfiguration, gates: FeatureGates): Array<FieldError> => {
  const l = kc.logging
  const errs: Array<FieldError> = []
  if (l.format !== "text" && l.format !== "json") {
    errs.push(invalid("logging.format", l.format, "Unsupported log format"))
  } else if (l.format === "json" && !gates.enabled("LoggingBetaOptions")) {
    errs.push(forbidden("logging.format", "Log format json is disabled, see LoggingBetaOptions feature"))
  }
  if (l.verbosity > maxInt32) errs.push(invalid("logging.verbosity", l.verbosity, `Must be <= ${maxInt32}`))
  if (l.vmodule.length > 0 && l.format !== "" && l.format !== "text") {
    errs.push(forbidden("logging.vmodule", "Only supported for text log format"))
  }
  l.vmodule.forEach((item, i) => {
    const path = `logging.vmodule[${i}]`
    if (item.filePattern === "") errs.push(required(path, "File pattern must not be empty"))
    if (/[=,]/.test(item.filePattern)) {
      errs.push(invalid(path, item.filePattern, "File pattern must not contain equal sign or comma"))
    }
    if (item.verbosity > maxInt32) errs.push(invalid(path, item.verbosity, `Must be <= ${maxInt32}`))
  })
  if (l.options.json.splitStream && !gates.enabled("LoggingAlphaOptions")) {
    errs.push(forbidden("logging.options.json.splitStream", "Feature LoggingAlphaOptions is disabled"))
  }
  if (!l.options.json.infoBufferSize.isZero() && !gates.enabled("LoggingAlphaOptions")) {
    errs.push(forbidden("logging.options.json.infoBufferSize", "Feature LoggingAlphaOptions is disabled"))
  }
  return errs
}

const validateTracing = (kc: NodeAgentConfiguration): Array<FieldError> => {
  const rate = kc.tracing?.samplingRatePerMillion
  const errs: Array<FieldError> = []
  if (rate !== undefined && rate < 0) {
    errs.push(invalid("tracing.samplingRatePerMillion", rate, "sampling rate must be positive"))
  }
  if (rate !== undefined && rate > 1_000_000) {
    errs.push(invalid("tracing.samplingRatePerMillion", rate, "sampling rate per million must be less than or equal to one million"))
  }
  return errs
}

const validateShowHiddenMetricsVersion = (v: string): Array<string> => {
  const valid = `${currentVersion.major}.${currentVersion.minor - 1}`
  if (v === "" || v === valid) return []
  return [`--show-hidden-metrics-for-version must be omitted or have the value '${valid}'. Only the previous minor version is allowed`]
}

const supportedReservedMemory = (resource: string) => resource === "memory" || resource.startsWith("hugepages-")

const validateReservedMemory = (kc: NodeAgentConfiguration): Array<string> => {
  const errs: Array<string> = []
  const seen = new Map<number, Set<string>>()
  for (const r of kc.reservedMemory ?? []) {
    const types = seen.get(r.numaNode) ?? new Set<string>()
    seen.set(r.numaNode, types)
    for (const [resource, q] of Object.entries(r.limits)) {
      if (!supportedReservedMemory(resource)) {
        errs.push(
          `the limit type "${resource}" for NUMA node ${r.numaNode} is not supported, only [memory hugepages-<HugePageSize>] is accepted`
        )
      }
      if (q.isZero()) errs.push(`reserved memory may not be zero for NUMA node ${r.numaNode} and resource "${resource}"`)
      if (types.has(resource)) {
        errs.push(`the reserved memory has a duplicate value for NUMA node ${r.numaNode} and resource "${resource}"`)
      }
      types.add(resource)
    }
  }
  return errs
}

const topologyManagerPolicies = ["none", "best-effort", "restricted", "single-numa-node"]
const second = 1000

/** The process gates with the document's `featureGates` applied (all-or-nothing, `featuregate` `SetFromMap`). */
export const configFeatureGates = (
  kc: Pick<NodeAgentConfiguration, "featureGates">,
  processGates: FeatureGates = defaultFeatureGates
): Either.Either<FeatureGates, string> =>
  Either.mapLeft(setFromMap(processGates, kc.featureGates ?? {}), (e) => e.message)

/**
 * Every message of upstream's `validation.go` for `kc` under `processGates` plus the document's `featureGates`.
 * Empty when valid. A feature gate error is returned alone.
 */
export const validateNodeAgentConfiguration = (
  kc: NodeAgentConfiguration,
  processGates: FeatureGates = defaultFeatureGates
): ReadonlyArray<string> => {
  const gatesOr = configFeatureGates(kc, processGates)
  if (Either.isLeft(gatesOr)) return [gatesOr.left]
  const gates = gatesOr.right
  const errs: Array<string> = []
  const fail = (msg: string) => errs.push(`invalid configuration: ${msg}`)
  const dur = formatDuration

  if (kc.nodeLeaseDurationSeconds <= 0) fail("nodeLeaseDurationSeconds must be greater than 0")
  if (!kc.cgroupsPerQOS && kc.enforceNodeAllocatable.length > 0) {
    fail("enforceNodeAllocatable (--enforce-node-allocatable) is not supported unless cgroupsPerQOS (--cgroups-per-qos) is set to true")
  }
  if (kc.systemCgroups !== "" && kc.cgroupRoot === "") {
    fail("systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified")
  }
  if (kc.eventBurst < 0) fail(`eventBurst (--event-burst) ${kc.eventBurst} must not be a negative number`)
  if (kc.eventRecordQPS < 0) fail(`eventRecordQPS (--event-qps) ${kc.eventRecordQPS} must not be a negative number`)
  if (kc.healthzPort !== 0 && (kc.healthzPort < 1 || kc.healthzPort > 65535)) {
    fail(`healthzPort (--healthz-port) ${kc.healthzPort} must be between 1 and 65535, inclusive`)
  }
  if (!gates.enabled("CustomCPUCFSQuotaPeriod") && kc.cpuCFSQuotaPeriod !== defaultCPUCFSQuotaPeriod) {
    fail(`cpuCFSQuotaPeriod (--cpu-cfs-quota-period) ${dur(kc.cpuCFSQuotaPeriod)} requires feature gate CustomCPUCFSQuotaPeriod`)
  }
  if (gates.enabled("CustomCPUCFSQuotaPeriod") && (kc.cpuCFSQuotaPeriod < 1 || kc.cpuCFSQuotaPeriod > second)) {
    fail(`cpuCFSQuotaPeriod (--cpu-cfs-quota-period) ${dur(kc.cpuCFSQuotaPeriod)} must be between 1ms and 1sec, inclusive`)
  }
  const high = kc.imageGCHighThresholdPercent
  const low = kc.imageGCLowThresholdPercent
  if (high < 0 || high > 100) {
    fail(`imageGCHighThresholdPercent (--image-gc-high-threshold) ${high} must be between 0 and 100, inclusive`)
  }
  if (low < 0 || low > 100) {
    fail(`imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be between 0 and 100, inclusive`)
  }
  if (low >= high) {
    fail(
      `imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) ${high}`
    )
  }
  if (kc.iptablesDropBit < 0 || kc.iptablesDropBit > 31) {
    fail(`iptablesDropBit (--iptables-drop-bit) ${kc.iptablesDropBit} must be between 0 and 31, inclusive`)
  }
  if (kc.iptablesMasqueradeBit < 0 || kc.iptablesMasqueradeBit > 31) {
    fail(`iptablesMasqueradeBit (--iptables-masquerade-bit) ${kc.iptablesMasqueradeBit} must be between 0 and 31, inclusive`)
  }
  const notNegative = (v: number, name: string) => {
    if (v < 0) fail(`${name} ${v} must not be a negative number`)
  }
  notNegative(kc.platformAPIBurst, "platformAPIBurst (--platform-api-burst)")
  notNegative(kc.platformAPIQPS, "platformAPIQPS (--platform-api-qps)")
  if (kc.nodeStatusMaxImages < -1) {
    fail(`nodeStatusMaxImages (--node-status-max-images) ${kc.nodeStatusMaxImages} must be -1 or greater`)
  }
  notNegative(kc.maxOpenFiles, "maxOpenFiles (--max-open-files)")
  notNegative(kc.maxPods, "maxPods (--max-pods)")
  if (kc.oomScoreAdj < -1000 || kc.oomScoreAdj > 1000) {
    fail(`oomScoreAdj (--oom-score-adj) ${kc.oomScoreAdj} must be between -1000 and 1000, inclusive`)
  }
  notNegative(kc.podsPerCore, "podsPerCore (--pods-per-core)")
  // Spec 001: podsPerCore "cannot exceed maxPods" (upstream never checks it; the spec wins).
  if (kc.podsPerCore > kc.maxPods && kc.maxPods >= 0) {
    fail(`podsPerCore (--pods-per-core) ${kc.podsPerCore} must not exceed maxPods (--max-pods) ${kc.maxPods}`)
  }
  if (kc.port < 1 || kc.port > 65535) fail(`port (--port) ${kc.port} must be between 1 and 65535, inclusive`)
  if (kc.readOnlyPort !== 0 && (kc.readOnlyPort < 1 || kc.readOnlyPort > 65535)) {
    fail(`readOnlyPort (--read-only-port) ${kc.readOnlyPort} must be between 0 and 65535, inclusive`)
  }
  notNegative(kc.registryBurst, "registryBurst (--registry-burst)")
  notNegative(kc.registryPullQPS, "registryPullQPS (--registry-qps)")
  if (kc.serverTLSBootstrap && !gates.enabled("RotateNodeAgentServerCertificate")) {
    fail(`serverTLSBootstrap ${kc.serverTLSBootstrap} requires feature gate RotateNodeAgentServerCertificate`)
  }
  if (kc.topologyManagerPolicy !== "none" && !gates.enabled("TopologyManager")) {
    fail(`topologyManagerPolicy ${kc.topologyManagerPolicy} requires feature gate TopologyManager`)
  }
  for (const t of kc.registerWithTaints ?? []) {
    if (!isValidTaint(t)) errs.push(`invalid taint: ${goTaint(t)}`)
    if (t.timeAdded !== undefined) fail("taint.TimeAdded is not nil")
  }
  if (!topologyManagerPolicies.includes(kc.topologyManagerPolicy)) {
    fail(
      `topologyManagerPolicy (--topology-manager-policy) ${goQuote(kc.topologyManagerPolicy)} must be one of: [${topologyManagerPolicies.map(goQuote).join(" ")}]`
    )
  }
  if (kc.topologyManagerScope !== "container" && !gates.enabled("TopologyManager")) {
    fail(`topologyManagerScope ${kc.topologyManagerScope} requires feature gate TopologyManager`)
  }
  if (kc.topologyManagerScope !== "container" && kc.topologyManagerScope !== "pod") {
    fail(`topologyManagerScope (--topology-manager-scope) ${goQuote(kc.topologyManagerScope)} must be one of: "container", or "pod"`)
  }

  const shutdown = kc.shutdownGracePeriod
  const critical = kc.shutdownGracePeriodCriticalPods
  if (gates.enabled("GracefulNodeShutdown")) {
    if (critical > shutdown) {
      fail(`shutdownGracePeriodCriticalPods ${dur(critical)} must be <= shutdownGracePeriod ${dur(shutdown)}`)
    }
    if (shutdown < 0 || (shutdown > 0 && shutdown < second)) {
      fail(`shutdownGracePeriod ${dur(shutdown)} must be either zero or otherwise >= 1 sec`)
    }
    if (critical < 0 || (critical > 0 && critical < second)) {
      fail(`shutdownGracePeriodCriticalPods ${dur(critical)} must be either zero or otherwise >= 1 sec`)
    }
  }
  if ((shutdown > 0 || critical > 0) && !gates.enabled("GracefulNodeShutdown")) {
    fail("specifying shutdownGracePeriod or shutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown")
  }
  const byPriority = (kc.shutdownGracePeriodByPodPriority ?? []).length > 0
  if (gates.enabled("GracefulNodeShutdownBasedOnPodPriority")) {
    if (byPriority && (shutdown > 0 || critical > 0)) {
      fail("Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time")
    }
  } else if (byPriority) {
    fail("Specifying shutdownGracePeriodByPodPriority requires feature gate GracefulNodeShutdownBasedOnPodPriority")
  }

  const swap = kc.memorySwap.swapBehavior
  if (gates.enabled("NodeSwap")) {
    if (swap !== "" && swap !== "LimitedSwap" && swap !== "UnlimitedSwap") {
      fail(`memorySwap.swapBehavior ${goQuote(swap)} must be one of: "", "LimitedSwap", or "UnlimitedSwap"`)
    }
  } else if (swap !== "") {
    fail("memorySwap.swapBehavior cannot be set when NodeSwap feature flag is disabled")
  }

  for (const val of kc.enforceNodeAllocatable) {
    switch (val) {
      case "pods":
        break
      case "system-reserved":
        if (kc.systemReservedCgroup === "") {
          fail(
            `systemReservedCgroup (--system-reserved-cgroup) must be specified when "system-reserved" contained in enforceNodeAllocatable (--enforce-node-allocatable)`
          )
        }
        break
      case "platform-reserved":
        if (kc.platformReservedCgroup === "") {
          fail(
            `platformReservedCgroup (--platform-reserved-cgroup) must be specified when "platform-reserved" contained in enforceNodeAllocatable (--enforce-node-allocatable)`
          )
        }
        break
      case "none":
        if (kc.enforceNodeAllocatable.length > 1) {
          fail(`enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when "none" is specified`)
        }
        break
      default:
        fail(
          `option ${goQuote(val)} specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are "pods", "system-reserved", "platform-reserved", or "none"`
        )
    }
  }
  if (!["none", "hairpin-veth", "promiscuous-bridge"].includes(kc.hairpinMode)) {
    fail(
      `option ${goQuote(kc.hairpinMode)} specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"`
    )
  }
  if (kc.reservedSystemCPUs !== "") {
    if (kc.systemReservedCgroup !== "" || kc.platformReservedCgroup !== "") {
      fail(
        "can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or platformReservedCgroup (--platform-reserved-cgroup)"
      )
    }
    const cpus = parseCPUSet(kc.reservedSystemCPUs)
    if (Either.isLeft(cpus)) fail(`unable to parse reservedSystemCPUs (--reserved-cpus) ${kc.reservedSystemCPUs}, error: ${cpus.left}`)
  }
  // Prefixed like the rest: a deliberate difference, upstream prints `validateReservedMemory`'s errors bare.
  for (const e of validateReservedMemory(kc)) fail(e)
  errs.push(...validateShowHiddenMetricsVersion(kc.showHiddenMetricsForVersion))
  errs.push(...validateLogging(kc, gates).map(formatFieldError))
  if (gates.enabled("NodeAgentTracing")) errs.push(...validateTracing(kc).map(formatFieldError))
  else if (kc.tracing !== undefined) fail("tracing should not be configured if NodeAgentTracing feature flag is disabled.")
  if (gates.enabled("MemoryQoS") && kc.memoryThrottlingFactor === undefined) {
    fail("memoryThrottlingFactor is required when MemoryQoS feature flag is enabled")
  }
  const factor = kc.memoryThrottlingFactor
  if (factor !== undefined && (factor <= 0 || factor > 1.0)) {
    fail(`memoryThrottlingFactor ${formatGoFloat(factor)} must be greater than 0 and less than or equal to 1.0`)
  }
  return errs
}

/** The aggregate upstream returns (`undefined` when valid). */
export const validationError = (kc: NodeAgentConfiguration, processGates?: FeatureGates): string | undefined => {
  const errs = validateNodeAgentConfiguration(kc, processGates)
  return errs.length === 0 ? undefined : aggregateErrors(errs)
}

/** How startup reports an invalid configuration (kubelet `server.go`). */
export const validationFailureMessage = (aggregate: string, file: string): string =>
  `failed to validate node agent configuration, error: ${aggregate}, path: ${file}`
