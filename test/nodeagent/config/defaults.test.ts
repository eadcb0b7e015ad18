import { describe, it, expect } from "@effect/vitest"
import { makeQuantity } from "../../../src/api/go/Quantity.js"
import { decodeNodeAgentConfiguration } from "../../../simulator/nodeagent/config/decode.js"
import { applyDefaults, defaultNodeAgentConfiguration } from "../../../simulator/nodeagent/config/defaults.js"
import type { NodeAgentConfiguration } from "../../../simulator/nodeagent/config/NodeAgentConfiguration.js"

const header = "apiVersion: nodeagent.config.platform/v1beta1\nkind: NodeAgentConfiguration\n"

const configOf = (body: string): NodeAgentConfiguration => {
  const decoded = decodeNodeAgentConfiguration(header + body, "test.yaml")
  if (!decoded.document) throw new Error(decoded.error)
  return applyDefaults(decoded.document)
}

const s = 1000
const m = 60 * s
const h = 60 * m

describe("defaults (v1beta1 defaults.go)", () => {
  it("fills every field of an empty document", () => {
    const expected: NodeAgentConfiguration = {
      enableServer: true,
      staticPodPath: "",
      syncFrequency: 1 * m,
      fileCheckFrequency: 20 * s,
      httpCheckFrequency: 20 * s,
      staticPodURL: "",
      staticPodURLHeader: undefined,
      address: "0.0.0.0",
      port: 10250,
      readOnlyPort: 0,
      tlsCertFile: "",
      tlsPrivateKeyFile: "",
      tlsCipherSuites: undefined,
      tlsMinVersion: "",
      rotateCertificates: false,
      serverTLSBootstrap: false,
      authentication: {
        x509: { clientCAFile: "" },
        webhook: { enabled: true, cacheTTL: 2 * m },
        anonymous: { enabled: false }
      },
      authorization: { mode: "Webhook", webhook: { cacheAuthorizedTTL: 5 * m, cacheUnauthorizedTTL: 30 * s } },
      registryPullQPS: 5,
      registryBurst: 10,
      eventRecordQPS: 5,
      eventBurst: 10,
      enableDebuggingHandlers: true,
      enableContentionProfiling: false,
      healthzPort: 10248,
      healthzBindAddress: "127.0.0.1",
      oomScoreAdj: -999,
      clusterDomain: "",
      clusterDNS: undefined,
      streamingConnectionIdleTimeout: 4 * h,
      nodeStatusUpdateFrequency: 10 * s,
      nodeStatusReportFrequency: 5 * m,
      nodeLeaseDurationSeconds: 40,
      imageMinimumGCAge: 2 * m,
      imageGCHighThresholdPercent: 85,
      imageGCLowThresholdPercent: 80,
      volumeStatsAggPeriod: 1 * m,
      nodeAgentCgroups: "",
      systemCgroups: "",
      cgroupRoot: "",
      cgroupsPerQOS: true,
      cgroupDriver: "cgroupfs",
      cpuManagerPolicy: "None",
      cpuManagerPolicyOptions: undefined,
      cpuManagerReconcilePeriod: 10 * s,
      memoryManagerPolicy: "none",
      topologyManagerPolicy: "none",
      topologyManagerScope: "container",
      topologyManagerPolicyOptions: undefined,
      qosReserved: undefined,
      runtimeRequestTimeout: 2 * m,
      hairpinMode: "promiscuous-bridge",
      maxPods: 110,
      podCIDR: "",
      podPidsLimit: -1,
      resolvConf: "/etc/resolv.conf",
      runOnce: false,
      cpuCFSQuota: true,
      cpuCFSQuotaPeriod: 100,
      nodeStatusMaxImages: 50,
      maxOpenFiles: 1_000_000,
      contentType: "application/vnd.platform.protobuf",
      platformAPIQPS: 5,
      platformAPIBurst: 10,
      serializeImagePulls: true,
      evictionHard: {
        "memory.available": "100Mi",
        "nodefs.available": "10%",
        "nodefs.inodesFree": "5%",
        "imagefs.available": "15%"
      },
      evictionSoft: undefined,
      evictionSoftGracePeriod: undefined,
      evictionPressureTransitionPeriod: 5 * m,
      evictionMaxPodGracePeriod: 0,
      evictionMinimumReclaim: undefined,
      podsPerCore: 0,
      enableControllerAttachDetach: true,
      protectKernelDefaults: false,
      makeIPTablesUtilChains: true,
      iptablesMasqueradeBit: 14,
      iptablesDropBit: 15,
      featureGates: undefined,
      failSwapOn: true,
      memorySwap: { swapBehavior: "" },
      containerLogMaxSize: "10Mi",
      containerLogMaxFiles: 5,
      configMapAndSecretChangeDetectionStrategy: "Watch",
      systemReserved: undefined,
      platformReserved: undefined,
      reservedSystemCPUs: "",
      showHiddenMetricsForVersion: "",
      systemReservedCgroup: "",
      platformReservedCgroup: "",
      enforceNodeAllocatable: ["pods"],
      allowedUnsafeSysctls: undefined,
      volumePluginDir: "/usr/libexec/platform/node-agent-plugins/volume/exec/",
      providerID: "",
      kernelMemcgNotification: false,
      logging: {
        format: "text",
        flushFrequency: 5_000_000_000,
        verbosity: 0,
        vmodule: [],
        options: { json: { splitStream: false, infoBufferSize: makeQuantity(0) } }
      },
      enableSystemLogHandler: true,
      shutdownGracePeriod: 0,
      shutdownGracePeriodCriticalPods: 0,
      shutdownGracePeriodByPodPriority: undefined,
      reservedMemory: undefined,
      enableProfilingHandler: true,
      enableDebugFlagsHandler: true,
      seccompDefault: false,
      memoryThrottlingFactor: 0.8,
      registerWithTaints: undefined,
      registerNode: true,
      tracing: undefined,
      localStorageCapacityIsolation: true
    }
    expect(configOf("")).toStrictEqual(expected)
    expect(defaultNodeAgentConfiguration).toStrictEqual(expected)
    expect(configOf("").logging.options.json.infoBufferSize.isZero()).toBe(true)
  })

  it("keeps an explicit false or 0 in pointer fields", () => {
    const c = configOf(
      [
        "enableServer: false",
        "registryPullQPS: 0",
        "eventRecordQPS: 0",
        "healthzPort: 0",
        "oomScoreAdj: 0",
        "imageGCHighThresholdPercent: 0",
        "imageGCLowThresholdPercent: 0",
        "cgroupsPerQOS: false",
        "cpuCFSQuota: false",
        "cpuCFSQuotaPeriod: 0s",
        "nodeStatusMaxImages: 0",
        "platformAPIQPS: 0",
        "serializeImagePulls: false",
        "iptablesMasqueradeBit: 0",
        "iptablesDropBit: 0",
        "failSwapOn: false",
        "containerLogMaxFiles: 0",
        'resolvConf: ""',
        "memoryThrottlingFactor: 0",
        "enableDebuggingHandlers: false",
        "enableSystemLogHandler: false",
        "enableProfilingHandler: false",
        "enableDebugFlagsHandler: false",
        "enableControllerAttachDetach: false",
        "makeIPTablesUtilChains: false",
        "registerNode: false",
        "localStorageCapacityIsolation: false",
        "authentication: {webhook: {enabled: false}}"
      ].join("\n")
    )
    expect(c.enableServer).toBe(false)
    expect(c.registryPullQPS).toBe(0)
    expect(c.eventRecordQPS).toBe(0)
    expect(c.healthzPort).toBe(0)
    expect(c.oomScoreAdj).toBe(0)
    expect(c.imageGCHighThresholdPercent).toBe(0)
    expect(c.imageGCLowThresholdPercent).toBe(0)
    expect(c.cgroupsPerQOS).toBe(false)
    expect(c.cpuCFSQuota).toBe(false)
    expect(c.cpuCFSQuotaPeriod).toBe(0)
    expect(c.nodeStatusMaxImages).toBe(0)
    expect(c.platformAPIQPS).toBe(0)
    expect(c.serializeImagePulls).toBe(false)
    expect(c.iptablesMasqueradeBit).toBe(0)
    expect(c.iptablesDropBit).toBe(0)
    expect(c.failSwapOn).toBe(false)
    expect(c.containerLogMaxFiles).toBe(0)
    expect(c.resolvConf).toBe("")
    expect(c.memoryThrottlingFactor).toBe(0)
    expect(c.enableDebuggingHandlers).toBe(false)
    expect(c.enableSystemLogHandler).toBe(false)
    expect(c.enableProfilingHandler).toBe(false)
    expect(c.enableDebugFlagsHandler).toBe(false)
    expect(c.enableControllerAttachDetach).toBe(false)
    expect(c.makeIPTablesUtilChains).toBe(false)
    expect(c.registerNode).toBe(false)
    expect(c.localStorageCapacityIsolation).toBe(false)
    expect(c.authentication.webhook.enabled).toBe(false)
  })

  it("replaces a zero in plain fields", () => {
    const c = configOf(
      [
        "port: 0",
        "maxPods: 0",
        "eventBurst: 0",
        "registryBurst: 0",
        "platformAPIBurst: 0",
        "nodeLeaseDurationSeconds: 0",
        "maxOpenFiles: 0",
        "syncFrequency: 0s",
        "streamingConnectionIdleTimeout: '0'",
        'address: ""',
        'hairpinMode: ""',
        "logging: {flushFrequency: 0, format: ''}"
      ].join("\n")
    )
    expect(c.port).toBe(10250)
    expect(c.maxPods).toBe(110)
    expect(c.eventBurst).toBe(10)
    expect(c.registryBurst).toBe(10)
    expect(c.platformAPIBurst).toBe(10)
    expect(c.nodeLeaseDurationSeconds).toBe(40)
    expect(c.maxOpenFiles).toBe(1_000_000)
    expect(c.syncFrequency).toBe(60_000)
    expect(c.streamingConnectionIdleTimeout).toBe(4 * h)
    expect(c.address).toBe("0.0.0.0")
    expect(c.hairpinMode).toBe("promiscuous-bridge")
    expect(c.logging.flushFrequency).toBe(5_000_000_000)
    expect(c.logging.format).toBe("text")
  })

  it("keeps values that are set", () => {
    const c = configOf("maxPods: 20\nsyncFrequency: 30s\ncpuManagerPolicy: static\nauthorization: {mode: AlwaysAllow}")
    expect(c.maxPods).toBe(20)
    expect(c.syncFrequency).toBe(30_000)
    expect(c.cpuManagerPolicy).toBe("static")
    expect(c.authorization.mode).toBe("AlwaysAllow")
    expect(c.authorization.webhook.cacheAuthorizedTTL).toBe(5 * m)
  })

  it("copies an explicit nodeStatusUpdateFrequency into nodeStatusReportFrequency", () => {
    expect(configOf("nodeStatusUpdateFrequency: 20s").nodeStatusReportFrequency).toBe(20 * s)
    expect(configOf("nodeStatusUpdateFrequency: 20s\nnodeStatusReportFrequency: 1m").nodeStatusReportFrequency).toBe(m)
    expect(configOf("nodeStatusReportFrequency: 1m").nodeStatusUpdateFrequency).toBe(10 * s)
  })

  it("maps nil or negative podPidsLimit to -1", () => {
    expect(configOf("podPidsLimit: -5").podPidsLimit).toBe(-1)
    expect(configOf("podPidsLimit: 0").podPidsLimit).toBe(0)
    expect(configOf("podPidsLimit: 1024").podPidsLimit).toBe(1024)
  })

  it("replaces the whole evictionHard map when any key is set, and keeps an empty one", () => {
    expect(configOf("evictionHard: {memory.available: 1Gi}").evictionHard).toStrictEqual({ "memory.available": "1Gi" })
    expect(configOf("evictionHard: {}").evictionHard).toStrictEqual({})
    expect(configOf("evictionHard: null").evictionHard["memory.available"]).toBe("100Mi")
  })

  it("defaults enforceNodeAllocatable only when absent", () => {
    expect(configOf("enforceNodeAllocatable: []").enforceNodeAllocatable).toStrictEqual([])
    expect(configOf("enforceNodeAllocatable: [none]").enforceNodeAllocatable).toStrictEqual(["none"])
  })

  it("fills nested list items with zero values", () => {
    const c = configOf("registerWithTaints: [{key: a}]\nreservedMemory: [{limits: {memory: 1Gi}}]\nlogging: {vmodule: [{filePattern: x}]}")
    expect(c.registerWithTaints).toStrictEqual([{ key: "a", value: "", effect: "" }])
    expect(c.reservedMemory?.[0]?.numaNode).toBe(0)
    expect(c.reservedMemory?.[0]?.limits["memory"]?.value()).toBe(1024 ** 3)
    expect(c.logging.vmodule).toStrictEqual([{ filePattern: "x", verbosity: 0 }])
  })
})
