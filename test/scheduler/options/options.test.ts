import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import {
  defaultSchedulerConfiguration,
  effectiveConfiguration,
  encodeConfiguration,
  loadConfiguration,
  parseSchedulerFlags,
  podMaxInUnschedulablePodsDuration,
  renderConfiguration,
  schedulerFlags,
  honouredFlags,
  notHonouredWarnings,
  schedulerHelp,
  type SchedulerOptions,
  validateConfiguration,
  validateSchedulerOptions,
  withConfigFile
} from "../../../simulator/scheduler/options/index.js"

const right = <A, E>(e: Either.Either<A, E>): A => {
  if (Either.isLeft(e)) throw new Error(`expected Right, got Left: ${JSON.stringify(e.left)}`)
  return e.right
}
const leftMessage = <A>(e: Either.Either<A, { readonly message: string }>): string => {
  if (Either.isRight(e)) throw new Error("expected Left, got Right")
  return e.left.message
}
const parse = (...argv: Array<string>) => right(parseSchedulerFlags(argv))
const parseError = (...argv: Array<string>) => leftMessage(parseSchedulerFlags(argv))
const validationError = (opts: SchedulerOptions) => leftMessage(validateSchedulerOptions(opts))

const apiVersion = "platformscheduler.config.platform/v1"
const kind = "PlatformSchedulerConfiguration"
const doc = (body: string) => `apiVersion: ${apiVersion}\nkind: ${kind}\n${body}`

// Spec 001 "Scheduler command-line options": every flag with its default (durations in ms).
const specDefaults: Record<string, unknown> = {
  allowMetricLabels: {},
  authenticationPlatformconfig: "",
  authenticationSkipLookup: false,
  authenticationTokenWebhookCacheTtl: 10_000,
  authenticationTolerateLookupFailure: true,
  authorizationAlwaysAllowPaths: ["/healthz", "/readyz", "/livez"],
  authorizationPlatformconfig: "",
  authorizationWebhookCacheAuthorizedTtl: 10_000,
  authorizationWebhookCacheUnauthorizedTtl: 10_000,
  vendorContainerRegistryConfig: "",
  bindAddress: "0.0.0.0",
  certDir: "",
  clientCaFile: "",
  config: "",
  contentionProfiling: true,
  disabledMetrics: [],
  help: false,
  http2MaxStreamsPerConnection: 0,
  platformApiBurst: 100,
  platformApiContentType: "application/vnd.platform.protobuf",
  platformApiQps: 50,
  platformconfig: "",
  leaderElect: true,
  leaderElectLeaseDuration: 15_000,
  leaderElectRenewDeadline: 10_000,
  leaderElectResourceLock: "leases",
  leaderElectResourceName: "platform-scheduler",
  leaderElectResourceNamespace: "platform-system",
  leaderElectRetryPeriod: 2_000,
  lockObjectName: "platform-scheduler",
  lockObjectNamespace: "platform-system",
  logFlushFrequency: 5_000,
  loggingFormat: "text",
  master: "",
  permitAddressSharing: false,
  permitPortSharing: false,
  podMaxInUnschedulablePodsDuration: 300_000,
  profiling: true,
  requestheaderAllowedNames: [],
  requestheaderClientCaFile: "",
  requestheaderExtraHeadersPrefix: ["x-remote-extra-"],
  requestheaderGroupHeaders: ["x-remote-group"],
  requestheaderUsernameHeaders: ["x-remote-user"],
  securePort: 10259,
  showHiddenMetricsForVersion: "",
  tlsCertFile: "",
  tlsCipherSuites: [],
  tlsMinVersion: "",
  tlsPrivateKeyFile: "",
  tlsSniCertKey: [],
  v: 0,
  version: "false",
  vmodule: [],
  writeConfigTo: ""
}
const specFlagNames = [
  "allow-metric-labels", "authentication-platformconfig", "authentication-skip-lookup",
  "authentication-token-webhook-cache-ttl", "authentication-tolerate-lookup-failure", "authorization-always-allow-paths",
  "authorization-platformconfig", "authorization-webhook-cache-authorized-ttl",
  "authorization-webhook-cache-unauthorized-ttl", "vendor-container-registry-config", "bind-address", "cert-dir",
  "client-ca-file", "config", "contention-profiling", "disabled-metrics", "feature-gates", "help",
  "http2-max-streams-per-connection", "platform-api-burst", "platform-api-content-type", "platform-api-qps",
  "platformconfig", "leader-elect", "leader-elect-lease-duration", "leader-elect-renew-deadline",
  "leader-elect-resource-lock", "leader-elect-resource-name", "leader-elect-resource-namespace",
  "leader-elect-retry-period", "lock-object-name", "lock-object-namespace", "log-flush-frequency", "logging-format",
  "master", "permit-address-sharing", "permit-port-sharing", "pod-max-in-unschedulable-pods-duration", "profiling",
  "requestheader-allowed-names", "requestheader-client-ca-file", "requestheader-extra-headers-prefix",
  "requestheader-group-headers", "requestheader-username-headers", "secure-port", "show-hidden-metrics-for-version",
  "tls-cert-file", "tls-cipher-suites", "tls-min-version", "tls-private-key-file", "tls-sni-cert-key", "v", "version",
  "vmodule", "write-config-to"
]
const specDeprecated = [
  "contention-profiling", "platform-api-burst", "platform-api-content-type", "platform-api-qps", "platformconfig",
  "lock-object-name", "lock-object-namespace", "pod-max-in-unschedulable-pods-duration", "profiling"
]

describe("flag table", () => {
  it("has exactly the spec's flags, each with the spec's default", () => {
    expect(schedulerFlags.map((f) => f.name).sort()).toEqual([...specFlagNames].sort())
    const { flags } = parse()
    const { featureGates, ...rest } = flags
    expect(rest).toEqual(specDefaults)
    expect(featureGates.toString()).toBe("")
  })

  it("marks the spec's deprecated flags, and only those", () => {
    expect(schedulerFlags.filter((f) => f.deprecated).map((f) => f.name).sort()).toEqual([...specDeprecated].sort())
  })
})

describe("parseSchedulerFlags: pflag syntax", () => {
  it("takes --flag=value and --flag value", () => {
    expect(parse("--master=https://a:6443").flags.master).toBe("https://a:6443")
    expect(parse("--master", "https://b:6443").flags.master).toBe("https://b:6443")
    // The next argument is the value even when it looks like a flag.
    expect(parse("--master", "--config").flags.master).toBe("--config")
    expect(parse("--config=").flags.config).toBe("")
  })

  it("takes booleans bare or with =value, never from the next argument", () => {
    expect(parse("--leader-elect=false").flags.leaderElect).toBe(false)
    expect(parse("--leader-elect=F").flags.leaderElect).toBe(false)
    expect(parse("--leader-elect=false", "--leader-elect").flags.leaderElect).toBe(true)
    expect(parse("--permit-port-sharing").flags.permitPortSharing).toBe(true)
    expect(parseError("--leader-elect", "false")).toBe('"platform-scheduler" does not take any arguments, got ["false"]')
    expect(parseError("a", "b")).toBe('"platform-scheduler" does not take any arguments, got ["a" "b"]')
  })

  it("parses durations with Go's ParseDuration", () => {
    expect(parse("--leader-elect-lease-duration=1m30s").flags.leaderElectLeaseDuration).toBe(90_000)
    expect(parse("--leader-elect-retry-period", "1.5s").flags.leaderElectRetryPeriod).toBe(1_500)
    expect(parse("--log-flush-frequency=250ms").flags.logFlushFrequency).toBe(250)
    expect(parse("--log-flush-frequency=0").flags.logFlushFrequency).toBe(0)
    expect(parse("--log-flush-frequency=1h").flags.logFlushFrequency).toBe(3_600_000)
  })

  it("takes shorthands -v3, -v=3, -v 3 and runs of them", () => {
    expect(parse("-v3").flags.v).toBe(3)
    expect(parse("-v=4").flags.v).toBe(4)
    expect(parse("-v", "5").flags.v).toBe(5)
    expect(parse("--v=6").flags.v).toBe(6)
    const o = parse("-hv2")
    expect(o.helpRequested).toBe(true)
    expect(o.flags.v).toBe(2)
  })

  it("reads _ as - in long names and stops at --", () => {
    expect(parse("--leader_elect_resource_name=x").flags.leaderElectResourceName).toBe("x")
    expect(parseError("--", "--master=x")).toBe('"platform-scheduler" does not take any arguments, got ["--master=x"]')
  })

  it("replaces a list default on first use and appends afterwards", () => {
    expect(parse("--authorization-always-allow-paths=/a,/b").flags.authorizationAlwaysAllowPaths).toEqual(["/a", "/b"])
    expect(
      parse("--authorization-always-allow-paths=/a", "--authorization-always-allow-paths", "/b").flags
        .authorizationAlwaysAllowPaths
    ).toEqual(["/a", "/b"])
    expect(parse('--disabled-metrics="a,b",c').flags.disabledMetrics).toEqual(["a,b", "c"])
    expect(parse("--tls-cipher-suites=").flags.tlsCipherSuites).toEqual([])
  })

  it("parses maps, cert/key pairs, vmodule and feature gates", () => {
    expect(parse("--allow-metric-labels=metric1,label1='v1,v2'").flags.allowMetricLabels).toEqual({
      "metric1,label1": "'v1,v2'"
    })
    expect(parse("--allow-metric-labels=a=1,b=2", "--allow-metric-labels=c=3").flags.allowMetricLabels).toEqual({
      a: "1",
      b: "2",
      c: "3"
    })
    expect(parse("--tls-sni-cert-key=a.crt,a.key", "--tls-sni-cert-key", "b.crt,b.key:*.b.com, b.com").flags.tlsSniCertKey).toEqual([
      { certFile: "a.crt", keyFile: "a.key", names: [] },
      { certFile: "b.crt", keyFile: "b.key", names: ["*.b.com", "b.com"] }
    ])
    expect(parse("--vmodule=queue*=4,cache=2").flags.vmodule).toEqual([
      { pattern: "queue*", verbosity: 4 },
      { pattern: "cache", verbosity: 2 }
    ])
    const o = parse("--feature-gates=AllAlpha=true", "--feature-gates", "NodeSwap=false")
    expect(o.featureGates.enabled("NodeSwap")).toBe(false)
    expect(o.featureGates.enabled("MemoryQoS")).toBe(true)
    expect(o.flags.version).toBe("false")
    expect(parse("--version").flags.version).toBe("true")
    expect(parse("--version=raw").flags.version).toBe("raw")
  })

  it("honours --help before checking positional arguments", () => {
    expect(parse("--help", "stray").helpRequested).toBe(true)
    expect(parse().helpRequested).toBe(false)
  })
})

describe("parseSchedulerFlags: pflag errors", () => {
  it("names unknown flags and shorthands", () => {
    expect(parseError("--foo")).toBe("unknown flag: --foo")
    expect(parseError("--foo=bar")).toBe("unknown flag: --foo")
    expect(parseError("--kubeconfig=x")).toBe("unknown flag: --kubeconfig")
    expect(parseError("-x")).toBe("unknown shorthand flag: 'x' in -x")
    expect(parseError("-leader-elect")).toBe("unknown shorthand flag: 'l' in -leader-elect")
    expect(parseError("---foo")).toBe("bad flag syntax: ---foo")
  })

  it("asks for missing arguments", () => {
    expect(parseError("--config")).toBe("flag needs an argument: --config")
    expect(parseError("--leader-elect-lease-duration")).toBe("flag needs an argument: --leader-elect-lease-duration")
    expect(parseError("-v")).toBe("flag needs an argument: 'v' in -v")
  })

  it("reports invalid values with the flag's parser text", () => {
    expect(parseError("--leader-elect=yes")).toBe(
      'invalid argument "yes" for "--leader-elect" flag: strconv.ParseBool: parsing "yes": invalid syntax'
    )
    expect(parseError("--leader-elect-lease-duration=15")).toBe(
      'invalid argument "15" for "--leader-elect-lease-duration" flag: time: missing unit in duration "15"'
    )
    expect(parseError("--leader-elect-lease-duration=5d")).toBe(
      'invalid argument "5d" for "--leader-elect-lease-duration" flag: time: unknown unit "d" in duration "5d"'
    )
    expect(parseError("--leader-elect-renew-deadline=abc")).toBe(
      'invalid argument "abc" for "--leader-elect-renew-deadline" flag: time: invalid duration "abc"'
    )
    expect(parseError("--secure-port=x")).toBe(
      'invalid argument "x" for "--secure-port" flag: strconv.ParseInt: parsing "x": invalid syntax'
    )
    expect(parseError("--platform-api-burst=3000000000")).toBe(
      'invalid argument "3000000000" for "--platform-api-burst" flag: strconv.ParseInt: parsing "3000000000": value out of range'
    )
    expect(parseError("--platform-api-qps=fast")).toBe(
      'invalid argument "fast" for "--platform-api-qps" flag: strconv.ParseFloat: parsing "fast": invalid syntax'
    )
    expect(parseError("-v=x")).toBe('invalid argument "x" for "-v, --v" flag: strconv.ParseUint: parsing "x": invalid syntax')
    expect(parseError("--bind-address=nope")).toBe('invalid argument "nope" for "--bind-address" flag: failed to parse IP: "nope"')
    expect(parseError("--allow-metric-labels=abc")).toBe(
      'invalid argument "abc" for "--allow-metric-labels" flag: abc must be formatted as key=value'
    )
    expect(parseError("--tls-sni-cert-key=only.crt")).toBe(
      'invalid argument "only.crt" for "--tls-sni-cert-key" flag: expected comma separated certificate and key file paths'
    )
    expect(parseError("--vmodule=a")).toBe('invalid argument "a" for "--vmodule" flag: "a" does not have the pattern=N format')
  })

  it("passes feature gate errors through the flag", () => {
    expect(parseError("--feature-gates=Foo=true")).toBe(
      'invalid argument "Foo=true" for "--feature-gates" flag: unrecognized feature gate: Foo'
    )
    expect(parseError("--feature-gates=NodeSwap")).toBe(
      'invalid argument "NodeSwap" for "--feature-gates" flag: missing bool value for NodeSwap'
    )
    expect(parseError("--feature-gates=NodeSwap=on")).toBe(
      'invalid argument "NodeSwap=on" for "--feature-gates" flag: invalid value of NodeSwap=on, err: strconv.ParseBool: parsing "on": invalid syntax'
    )
    expect(parseError("--feature-gates=CPUManager=false")).toBe(
      'invalid argument "CPUManager=false" for "--feature-gates" flag: cannot set feature gate CPUManager to false, feature is locked to true'
    )
    expect(parse("--feature-gates=CPUManager=true").warnings).toEqual([
      "Setting GA feature gate CPUManager=true. It will be removed in a future release."
    ])
  })
})

describe("schedulerHelp", () => {
  const help = schedulerHelp()
  const honoured = [
    "config", "write-config-to", "lock-object-name", "lock-object-namespace", "pod-max-in-unschedulable-pods-duration",
    "leader-elect", "leader-elect-lease-duration", "leader-elect-renew-deadline", "leader-elect-resource-lock",
    "leader-elect-resource-name", "leader-elect-resource-namespace", "leader-elect-retry-period", "help"
  ]

  it("lists only the flags the simulated scheduler honours, and says the others are accepted", () => {
    expect([...honouredFlags].sort()).toEqual([...honoured].sort())
    for (const name of specFlagNames) {
      if (honoured.includes(name)) expect(help, name).toMatch(new RegExp(`--${name}[ \\[]`))
      else expect(help, name).not.toMatch(new RegExp(`--${name}[ \\[]`))
    }
    expect(help).toContain("  -h, --help")
    expect(help).toContain("Usage:\n  platform-scheduler [flags]\n")
    expect(help).toContain("The other kube-scheduler flags (secure serving, authentication, authorization, client connection, profiling,\n")
    expect(help.split("\n").length).toBeLessThan(40)
  })

  it("groups flags in upstream's section order, leaving out sections without an honoured flag", () => {
    const sections = [...help.matchAll(/^(.+) flags:$/gm)].map((m) => m[1])
    expect(sections).toEqual(["Misc", "Deprecated", "Leader election", "Global"])
  })

  it("marks deprecated flags and shows non-zero defaults like pflag", () => {
    const line = (name: string) => help.split("\n").find((l) => l.includes(`--${name} `))!
    for (const name of ["lock-object-name", "lock-object-namespace", "pod-max-in-unschedulable-pods-duration"]) expect(line(name), name).toContain("DEPRECATED: ")
    expect(line("pod-max-in-unschedulable-pods-duration")).toContain("(default 5m0s)")
    expect(line("leader-elect-lease-duration")).toContain("(default 15s)")
    expect(line("leader-elect-resource-namespace")).toContain('(default "platform-system")')
    expect(line("leader-elect ")).toContain("(default true)")
  })

  it("a flag that is accepted but not honoured is named in a warning; honoured ones are not", () => {
    expect(notHonouredWarnings(parse("--secure-port=1234", "--leader-elect=false", "--v=2"))).toEqual([
      "flag --secure-port has no effect in the simulated scheduler (accepted for compatibility with kube-scheduler)",
      "flag --v has no effect in the simulated scheduler (accepted for compatibility with kube-scheduler)"
    ])
  })
})

describe("effective configuration", () => {
  it("defaults leader election to the spec's timings and lock", () => {
    const c = effectiveConfiguration(parse())
    expect(c.leaderElection).toEqual({
      leaderElect: true,
      leaseDuration: 15_000,
      renewDeadline: 10_000,
      retryPeriod: 2_000,
      resourceLock: "leases",
      resourceName: "platform-scheduler",
      resourceNamespace: "platform-system"
    })
    expect(c.clientConnection).toEqual({
      platformconfig: "",
      acceptContentTypes: "",
      contentType: "application/vnd.platform.protobuf",
      qps: 50,
      burst: 100
    })
    expect(c).toMatchObject({
      apiVersion,
      kind,
      parallelism: 16,
      percentageOfNodesToScore: 0,
      podInitialBackoffSeconds: 1,
      podMaxBackoffSeconds: 10,
      enableProfiling: true,
      enableContentionProfiling: true
    })
    expect(c.profiles.map((p) => p.schedulerName)).toEqual(["default-scheduler"])
    expect(podMaxInUnschedulablePodsDuration(parse())).toBe(300_000)
  })

  it("applies the leader election flags", () => {
    const c = effectiveConfiguration(
      parse(
        "--leader-elect=false",
        "--leader-elect-lease-duration=30s",
        "--leader-elect-renew-deadline=20s",
        "--leader-elect-retry-period=4s",
        "--leader-elect-resource-lock=endpointsleases",
        "--leader-elect-resource-name=sched",
        "--leader-elect-resource-namespace=ns"
      )
    )
    expect(c.leaderElection).toEqual({
      leaderElect: false,
      leaseDuration: 30_000,
      renewDeadline: 20_000,
      retryPeriod: 4_000,
      resourceLock: "endpointsleases",
      resourceName: "sched",
      resourceNamespace: "ns"
    })
  })

  it("without --config applies the deprecated flags; the leader election flags win over lock-object-*", () => {
    const opts = parse(
      "--platform-api-qps=20",
      "--platform-api-burst=40",
      "--platform-api-content-type=application/json",
      "--platformconfig=/etc/platform/scheduler.conf",
      "--profiling=false",
      "--lock-object-name=old-name",
      "--lock-object-namespace=old-ns",
      "--leader-elect-resource-namespace=new-ns"
    )
    const c = effectiveConfiguration(opts)
    expect(c.clientConnection).toMatchObject({
      qps: 20,
      burst: 40,
      contentType: "application/json",
      platformconfig: "/etc/platform/scheduler.conf"
    })
    expect(c.enableProfiling).toBe(false)
    expect(c.enableContentionProfiling).toBe(true) // not given: keeps its default
    expect(c.leaderElection.resourceName).toBe("old-name")
    expect(c.leaderElection.resourceNamespace).toBe("new-ns")
    expect(opts.warnings).toEqual([])
  })

  it("with --config ignores the deprecated flags (with a warning) and the file's values win", () => {
    const opts = parse(
      "--config=/etc/scheduler.yaml",
      "--platform-api-qps=20",
      "--lock-object-name=old-name",
      "--profiling=false",
      "--pod-max-in-unschedulable-pods-duration=1m"
    )
    expect(opts.warnings).toEqual([
      "flag --platform-api-qps is ignored because a configuration file is given with --config",
      "flag --lock-object-name is ignored because a configuration file is given with --config",
      "flag --profiling is ignored because a configuration file is given with --config"
    ])
    const loaded = right(withConfigFile(opts, doc("clientConnection:\n  qps: 7\nparallelism: 4\n")))
    const c = effectiveConfiguration(loaded)
    expect(c.clientConnection.qps).toBe(7)
    expect(c.clientConnection.burst).toBe(100)
    expect(c.parallelism).toBe(4)
    expect(c.enableProfiling).toBe(true)
    expect(c.leaderElection.resourceName).toBe("platform-scheduler")
    // No file field replaces it: upstream applies it with or without --config.
    expect(podMaxInUnschedulablePodsDuration(loaded)).toBe(60_000)
  })

  it("with --config still applies the leader election flags over the file", () => {
    const opts = parse("--config=f", "--leader-elect=false", "--leader-elect-resource-name=from-flag")
    const c = effectiveConfiguration(
      right(withConfigFile(opts, doc("leaderElection:\n  leaderElect: true\n  resourceName: from-file\n  leaseDuration: 40s\n")))
    )
    expect(c.leaderElection).toMatchObject({ leaderElect: false, resourceName: "from-flag", leaseDuration: 40_000 })
  })

  it("refuses to guess a configuration whose file was not loaded", () => {
    expect(() => effectiveConfiguration(parse("--config=f"))).toThrow('configuration file "f" was not loaded')
  })

  it("adds the alpha plugins when their gates are on", () => {
    const names = (opts: SchedulerOptions) =>
      (effectiveConfiguration(opts).profiles[0]!.plugins as { multiPoint: { enabled: Array<{ name: string }> } }).multiPoint.enabled.map(
        (p) => p.name
      )
    expect(names(parse())).not.toContain("SchedulingGates")
    const on = names(parse("--feature-gates=PodSchedulingReadiness=true,DynamicResourceAllocation=true"))
    expect(on[on.length - 1]).toBe("SchedulingGates")
    expect(on.indexOf("DynamicResources")).toBe(on.indexOf("DefaultPreemption") - 1)
  })
})

describe("--write-config-to document", () => {
  it("renders sorted keys and Go durations", () => {
    const text = renderConfiguration(parse("--leader-elect-lease-duration=1m30s"))
    expect(text.startsWith(`apiVersion: ${apiVersion}\nclientConnection:\n  acceptContentTypes: ""\n`)).toBe(true)
    expect(text).toContain("leaderElection:\n  leaderElect: true\n  leaseDuration: 1m30s\n  renewDeadline: 10s\n")
    expect(text).toContain("  retryPeriod: 2s\n")
    expect(text).toContain(`kind: ${kind}\n`)
    expect(text).toContain("profiles:\n- pluginConfig:\n")
  })

  it("round-trips: loading the written document gives the same configuration", () => {
    for (const opts of [
      parse(),
      parse("--platform-api-qps=12.5", "--leader-elect-retry-period=1500ms", "--lock-object-namespace=x", "--profiling=false"),
      parse("--feature-gates=PodSchedulingReadiness=true")
    ]) {
      const text = renderConfiguration(opts)
      const loaded = right(loadConfiguration(text, opts.featureGates))
      expect(loaded.configuration).toEqual(effectiveConfiguration(opts))
      expect(loaded.warnings).toEqual([])
      // And as --config for a fresh run.
      const again = right(withConfigFile(parse("--config=written.yaml"), text))
      expect(renderConfiguration(again)).toBe(text)
    }
  })

  it("keeps written profiles, plugins and extenders", () => {
    const text = doc(
      "profiles:\n- schedulerName: a\n  percentageOfNodesToScore: 30\n  plugins:\n    score:\n      disabled:\n      - name: ImageLocality\n- schedulerName: b\nextenders:\n- urlPrefix: http://x\n"
    )
    const c = right(loadConfiguration(text)).configuration
    expect(c.profiles.map((p) => p.schedulerName)).toEqual(["a", "b"])
    expect(c.profiles[0]!.percentageOfNodesToScore).toBe(30)
    expect(c.profiles[0]!.plugins).toEqual({ score: { disabled: [{ name: "ImageLocality" }] } })
    expect(c.extenders).toEqual([{ urlPrefix: "http://x" }])
    expect(right(loadConfiguration(encodeConfiguration(c))).configuration).toEqual(c)
  })
})

describe("configuration file decoding", () => {
  it("is strict about unknown fields", () => {
    expect(leftMessage(loadConfiguration(doc("foo: 1\nleaderElection:\n  bar: x\nprofiles:\n- baz: 1\n"))))
      .toBe('strict decoding error: unknown field "foo", unknown field "leaderElection.bar", unknown field "profiles[0].baz"')
  })

  it("needs a kind and a known version", () => {
    expect(leftMessage(loadConfiguration(`apiVersion: ${apiVersion}\n`))).toBe(`Object 'Kind' is missing in 'apiVersion: ${apiVersion}\n'`)
    expect(leftMessage(loadConfiguration(`kind: ${kind}\n`))).toBe(`Object 'apiVersion' is missing in 'kind: ${kind}\n'`)
    expect(leftMessage(loadConfiguration(`apiVersion: ${apiVersion.replace("v1", "v9")}\nkind: ${kind}\n`))).toBe(
      `no kind "${kind}" is registered for version "platformscheduler.config.platform/v9" in scheme "pkg/scheduler/apis/config/scheme/scheme.go:30"`
    )
  })

  it("accepts v1beta3 with upstream's deprecation notice", () => {
    const loaded = right(loadConfiguration(`apiVersion: platformscheduler.config.platform/v1beta3\nkind: ${kind}\n`))
    expect(loaded.warnings).toEqual([`${kind} v1beta3 is deprecated in v1.26, will be removed in v1.29`])
    expect(loaded.configuration.apiVersion).toBe("platformscheduler.config.platform/v1beta3")
  })

  it("reports type mismatches and bad durations", () => {
    expect(leftMessage(loadConfiguration(doc("parallelism: many\n")))).toBe(
      `json: cannot unmarshal string into Go struct field ${kind}.parallelism of type int32`
    )
    expect(leftMessage(loadConfiguration(doc("leaderElection:\n  leaderElect: 1\n")))).toBe(
      "json: cannot unmarshal number into Go struct field LeaderElectionConfiguration.leaderElection.leaderElect of type bool"
    )
    expect(leftMessage(loadConfiguration(doc("leaderElection:\n  leaseDuration: 15\n")))).toBe(
      "json: cannot unmarshal number into Go value of type string"
    )
    expect(leftMessage(loadConfiguration(doc("leaderElection:\n  leaseDuration: 15x\n")))).toBe(
      'time: unknown unit "x" in duration "15x"'
    )
  })

  it("applies upstream defaults to zero values and contention profiling follows profiling", () => {
    const c = right(loadConfiguration(doc("enableProfiling: false\nleaderElection:\n  leaseDuration: 0s\nclientConnection:\n  qps: 0\n"))).configuration
    expect(c.enableContentionProfiling).toBe(false)
    expect(c.leaderElection.leaseDuration).toBe(15_000)
    expect(c.clientConnection.qps).toBe(50)
  })
})

describe("validation", () => {
  const withFile = (body: string, ...argv: Array<string>) => right(withConfigFile(parse("--config=f", ...argv), doc(body)))

  it("accepts the defaults", () => {
    expect(Either.isRight(validateSchedulerOptions(parse()))).toBe(true)
    expect(validateConfiguration(defaultSchedulerConfiguration())).toEqual([])
  })

  it("checks a file's leader election timings with the configuration error texts", () => {
    expect(validationError(withFile("leaderElection:\n  renewDeadline: 15s\n"))).toBe(
      "leaderElection.leaseDuration: Invalid value: 15s: LeaseDuration must be greater than RenewDeadline"
    )
    expect(validationError(withFile("", "--leader-elect-renew-deadline=20s"))).toBe(
      "leaderElection.leaseDuration: Invalid value: 20s: LeaseDuration must be greater than RenewDeadline"
    )
    expect(validationError(withFile("leaderElection:\n  leaseDuration: -1s\n"))).toBe(
      "[leaderElection.leaseDuration: Invalid value: -1s: must be greater than zero, leaderElection.leaseDuration: Invalid value: 10s: LeaseDuration must be greater than RenewDeadline]"
    )
    // With leader election off the timings are not checked.
    expect(Either.isRight(validateSchedulerOptions(withFile("leaderElection:\n  leaderElect: false\n  renewDeadline: 1h\n")))).toBe(true)
  })

  it("checks every component-base leader election rule, in upstream's order (ValidateLeaderElectionConfiguration, 1.26)", () => {
    // 1.26 rejects equal durations too (`<=`, kubernetes#111758), with the renew deadline as the value.
    expect(validationError(withFile("leaderElection:\n  leaseDuration: 10s\n  renewDeadline: 10s\n"))).toBe(
      "leaderElection.leaseDuration: Invalid value: 10s: LeaseDuration must be greater than RenewDeadline"
    )
    expect(validationError(withFile("leaderElection:\n  renewDeadline: -1s\n  retryPeriod: -2s\n"))).toBe(
      "[leaderElection.renewDeadline: Invalid value: -1s: must be greater than zero, leaderElection.retryPeriod: Invalid value: -2s: must be greater than zero]"
    )
    expect(
      validationError(
        withFile(
          "",
          "--leader-elect-lease-duration=0s",
          "--leader-elect-resource-lock=",
          "--leader-elect-resource-namespace=",
          "--leader-elect-resource-name="
        )
      )
    ).toBe(
      '[leaderElection.leaseDuration: Invalid value: 0s: must be greater than zero, leaderElection.leaseDuration: Invalid value: 10s: LeaseDuration must be greater than RenewDeadline, leaderElection.resourceLock: Invalid value: "": resourceLock is required, leaderElection.resourceNamespace: Invalid value: "": resourceNamespace is required, leaderElection.resourceName: Invalid value: "": resourceName is required]'
    )
  })

  it("without a file, the leader elector's own checks catch bad flag timings", () => {
    expect(validationError(parse("--leader-elect-renew-deadline=15s"))).toBe(
      "couldn't create leader elector: leaseDuration must be greater than renewDeadline"
    )
    expect(validationError(parse("--leader-elect-retry-period=9s"))).toBe(
      "couldn't create leader elector: renewDeadline must be greater than retryPeriod*JitterFactor"
    )
    expect(Either.isRight(validateSchedulerOptions(parse("--leader-elect=false", "--leader-elect-renew-deadline=1h")))).toBe(true)
  })

  it("checks the rest of the document", () => {
    expect(
      validationError(
        withFile("parallelism: 0\npercentageOfNodesToScore: 101\npodInitialBackoffSeconds: 0\npodMaxBackoffSeconds: -1\nclientConnection:\n  burst: -1\n")
      )
    ).toBe(
      "[clientConnection.burst: Invalid value: -1: must be non-negative, parallelism: Invalid value: 0: should be an integer value greater than zero, percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100], podInitialBackoffSeconds: Invalid value: 0: must be greater than 0, podMaxBackoffSeconds: Invalid value: -1: must be greater than or equal to PodInitialBackoffSeconds]"
    )
    expect(validationError(withFile("profiles:\n- schedulerName: a\n- schedulerName: a\n"))).toBe(
      'profiles[1].schedulerName: Duplicate value: "profiles[0].schedulerName"'
    )
    // Empty strings in the file are defaulted (upstream too); the flags can still blank them.
    expect(Either.isRight(validateSchedulerOptions(withFile("leaderElection:\n  resourceName: ''\n")))).toBe(true)
    expect(validationError(withFile("", "--leader-elect-resource-name=", "--leader-elect-resource-lock="))).toBe(
      '[leaderElection.resourceLock: Invalid value: "": resourceLock is required, leaderElection.resourceName: Invalid value: "": resourceName is required]'
    )
  })

  it("checks the resource lock kind when leader election is on", () => {
    expect(validationError(parse("--leader-elect-resource-lock=endpoints"))).toBe(
      "couldn't create resource lock: endpoints lock is removed, migrate to endpointsleases"
    )
    expect(validationError(parse("--leader-elect-resource-lock=foo"))).toBe("couldn't create resource lock: Invalid lock-type foo")
    expect(Either.isRight(validateSchedulerOptions(parse("--leader-elect-resource-lock=configmapsleases")))).toBe(true)
    expect(Either.isRight(validateSchedulerOptions(parse("--leader-elect=false", "--leader-elect-resource-lock=foo")))).toBe(true)
  })

  it("checks serving, metrics, TLS and logging options", () => {
    expect(validationError(parse("--secure-port=70000"))).toBe(
      "--secure-port 70000 must be between 0 and 65535, inclusive. 0 for turning off secure port"
    )
    expect(validationError(parse("--show-hidden-metrics-for-version=1.24"))).toBe(
      "--show-hidden-metrics-for-version must be omitted or have the value '1.25'. Only the previous minor version is allowed"
    )
    expect(Either.isRight(validateSchedulerOptions(parse("--show-hidden-metrics-for-version=1.25")))).toBe(true)
    expect(validationError(parse("--tls-min-version=VersionTLS9"))).toBe('unknown tls version "VersionTLS9"')
    expect(validationError(parse("--tls-cipher-suites=TLS_AES_128_GCM_SHA256,NOPE"))).toBe(
      "Cipher suite NOPE not supported or doesn't exist"
    )
    expect(validationError(parse("--logging-format=json"))).toBe('format: Invalid value: "json": Unsupported log format')
  })
})
