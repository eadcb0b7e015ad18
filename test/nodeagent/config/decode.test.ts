import { describe, it, expect } from "@effect/vitest"
import {
  decodeNodeAgentConfiguration,
  lenientDecodingLogLine,
  loadErrorMessage,
  schemeName
} from "../../../simulator/nodeagent/config/decode.js"

const header = "apiVersion: nodeagent.config.platform/v1beta1\nkind: NodeAgentConfiguration\n"
const decode = (text: string) => decodeNodeAgentConfiguration(text, "f.yaml")
const withHeader = (body: string) => decode(header + body)

describe("decoding: kind and apiVersion (configfiles.go)", () => {
  it("rejects an empty file", () => {
    const r = decode("")
    expect(r.error).toBe('node agent config file "f.yaml" was empty')
    expect(r.document).toBeUndefined()
    expect(loadErrorMessage("f.yaml", r.error!)).toBe(
      'failed to load node agent config file f.yaml, error node agent config file "f.yaml" was empty'
    )
  })

  it("reports a missing kind or apiVersion with the file text", () => {
    expect(decode(" \n").error).toBe("failed to decode: Object 'Kind' is missing in ' \n'")
    expect(decode("port: 1\n").error).toBe("failed to decode: Object 'Kind' is missing in 'port: 1\n'")
    expect(decode("kind: NodeAgentConfiguration\n").error).toBe(
      "failed to decode: Object 'apiVersion' is missing in 'kind: NodeAgentConfiguration\n'"
    )
    expect(decode("apiVersion: nodeagent.config.platform/\nkind: NodeAgentConfiguration").error).toBe(
      "failed to decode: Object 'apiVersion' is missing in 'apiVersion: nodeagent.config.platform/\nkind: NodeAgentConfiguration'"
    )
  })

  it("rejects kinds and versions the scheme does not know", () => {
    expect(decode("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: NodeAgentConfiguration").error).toBe(
      `failed to decode: no kind "NodeAgentConfiguration" is registered for version "kubelet.config.k8s.io/v1beta1" in scheme "${schemeName}"`
    )
    expect(decode("apiVersion: nodeagent.config.platform/v1beta1\nkind: KubeletConfiguration").error).toBe(
      `failed to decode: no kind "KubeletConfiguration" is registered for version "nodeagent.config.platform/v1beta1" in scheme "${schemeName}"`
    )
    expect(decode("apiVersion: v1\nkind: NodeAgentConfiguration").error).toBe(
      `failed to decode: no kind "NodeAgentConfiguration" is registered for version "v1" in scheme "${schemeName}"`
    )
    expect(decode("apiVersion: a/b/c\nkind: NodeAgentConfiguration").error).toBe(
      "failed to decode: unexpected GroupVersion string: a/b/c"
    )
  })

  it("decodes other kinds of the group but refuses them as a configuration", () => {
    expect(decode("apiVersion: nodeagent.config.platform/v1beta1\nkind: SerializedNodeConfigSource").error).toBe(
      "failed to cast object to NodeAgentConfiguration, unexpected type: nodeagent.config.platform/v1beta1, Kind=SerializedNodeConfigSource"
    )
  })

  it("reports a document that is not an object, or a kind that is not a string", () => {
    expect(decode("- a\n").error).toBe(
      'failed to decode: couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
    )
    const r = decode("apiVersion: nodeagent.config.platform/v1beta1\nkind: 5\n")
    expect(r.error).toBe(
      "failed to decode: couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string"
    )
    expect(r.issues[0]).toMatchObject({ path: "kind", line: 2, column: 7 })
  })

  it("reports YAML syntax errors with their line", () => {
    const r = decode(header + "port: [1, 2\n")
    expect(r.error).toMatch(/^failed to decode: error converting YAML to JSON: yaml: line \d+: /)
    expect(r.issues[0]?.line).toBeGreaterThan(0)
  })

  it("accepts JSON", () => {
    const r = decode('{"apiVersion": "nodeagent.config.platform/v1beta1", "kind": "NodeAgentConfiguration", "maxPods": 20}')
    expect(r.error).toBeUndefined()
    expect(r.document?.maxPods).toBe(20)
  })

  it("holds text starting with { to JSON syntax, as upstream's JSON decoder does", () => {
    const r = decode('{"apiVersion": "nodeagent.config.platform/v1beta1",\n "kind": "NodeAgentConfiguration", port: 1}')
    expect(r.error).toMatch(/^failed to decode: Expected double-quoted property name in JSON at position 87$/)
    expect(r.issues[0]).toMatchObject({ line: 2, column: 36 })
  })

  it("reads only the first YAML document", () => {
    expect(decode(header + "maxPods: 20\n---\nmaxPods: 30\n").document?.maxPods).toBe(20)
  })
})

describe("decoding: field values", () => {
  it("decodes scalars, durations, maps, lists and nested structs", () => {
    const r = withHeader(
      [
        "syncFrequency: 1h30m",
        "maxPods: 20",
        "memoryThrottlingFactor: 0.5",
        "clusterDNS: [10.0.0.10]",
        "evictionHard: {memory.available: 1Gi}",
        "featureGates: {NodeSwap: true}",
        "staticPodURLHeader: {X-A: [a, b]}",
        "authentication: {webhook: {cacheTTL: 10s}}",
        "logging: {options: {json: {infoBufferSize: 1Mi}}}",
        "anchors: &a 5",
        "port: *a"
      ].join("\n")
    )
    expect(r.document?.syncFrequency).toBe(5_400_000)
    expect(r.document?.maxPods).toBe(20)
    expect(r.document?.memoryThrottlingFactor).toBe(0.5)
    expect(r.document?.clusterDNS).toStrictEqual(["10.0.0.10"])
    expect(r.document?.evictionHard).toStrictEqual({ "memory.available": "1Gi" })
    expect(r.document?.featureGates).toStrictEqual({ NodeSwap: true })
    expect(r.document?.staticPodURLHeader).toStrictEqual({ "X-A": ["a", "b"] })
    expect(r.document?.authentication?.webhook?.cacheTTL).toBe(10_000)
    expect(r.document?.logging?.options?.json?.infoBufferSize?.value()).toBe(1024 * 1024)
    expect(r.document?.port).toBe(5)
  })

  it("reports type errors as Go's JSON decoder, with path and position", () => {
    const r = withHeader('port: "abc"\n')
    expect(r.error).toBe(
      "failed to decode: json: cannot unmarshal string into Go struct field NodeAgentConfiguration.port of type int32"
    )
    expect(r.document).toBeUndefined()
    expect(r.issues).toStrictEqual([
      {
        kind: "error",
        path: "port",
        message: "json: cannot unmarshal string into Go struct field NodeAgentConfiguration.port of type int32",
        line: 3,
        column: 7
      }
    ])
  })

  it("names each kind of mistake as Go does", () => {
    const cases: Array<[string, string, string]> = [
      ["port: 1.5", "port", "json: cannot unmarshal number 1.5 into Go struct field NodeAgentConfiguration.port of type int32"],
      ["port: 3000000000", "port", "json: cannot unmarshal number 3000000000 into Go struct field NodeAgentConfiguration.port of type int32"],
      ["enableServer: yes", "enableServer", "json: cannot unmarshal string into Go struct field NodeAgentConfiguration.enableServer of type bool"],
      ["staticPodPath: 5", "staticPodPath", "json: cannot unmarshal number into Go struct field NodeAgentConfiguration.staticPodPath of type string"],
      ["clusterDNS: x", "clusterDNS", "json: cannot unmarshal string into Go struct field NodeAgentConfiguration.clusterDNS of type []string"],
      ["evictionHard: {memory.available: 100}", "evictionHard[memory.available]", "json: cannot unmarshal number into Go struct field NodeAgentConfiguration.evictionHard of type string"],
      ["featureGates: {A: 1}", "featureGates[A]", "json: cannot unmarshal number into Go struct field NodeAgentConfiguration.featureGates of type bool"],
      ["authentication: x", "authentication", "json: cannot unmarshal string into Go struct field NodeAgentConfiguration.authentication of type v1beta1.NodeAgentAuthentication"],
      ["authentication: {webhook: {enabled: x}}", "authentication.webhook.enabled", "json: cannot unmarshal string into Go struct field NodeAgentWebhookAuthentication.authentication.webhook.enabled of type bool"],
      ["registerWithTaints: [{key: 5}]", "registerWithTaints[0].key", "json: cannot unmarshal number into Go struct field Taint.registerWithTaints.key of type string"],
      ["logging: {flushFrequency: 5s}", "logging.flushFrequency", "json: cannot unmarshal string into Go struct field LoggingConfiguration.logging.flushFrequency of type time.Duration"],
      ["logging: {verbosity: -1}", "logging.verbosity", "json: cannot unmarshal number -1 into Go struct field LoggingConfiguration.logging.verbosity of type v1.VerbosityLevel"],
      ["syncFrequency: abc", "syncFrequency", 'time: invalid duration "abc"'],
      ["syncFrequency: '10'", "syncFrequency", 'time: missing unit in duration "10"'],
      ["syncFrequency: 5.5", "syncFrequency", "json: cannot unmarshal number into Go value of type string"],
      ["authentication: {webhook: {cacheTTL: 2d}}", "authentication.webhook.cacheTTL", 'time: unknown unit "d" in duration "2d"'],
      ["logging: {options: {json: {infoBufferSize: 10%}}}", "logging.options.json.infoBufferSize", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
      ["reservedMemory: [{limits: {memory: 1K}}]", "reservedMemory[0].limits[memory]", "unable to parse quantity's suffix"]
    ]
    for (const [body, path, message] of cases) {
      const r = withHeader(body)
      expect([body, r.error]).toStrictEqual([body, `failed to decode: ${message}`])
      expect([body, r.issues.map((i) => i.path)]).toStrictEqual([body, [path]])
    }
  })

  it("lists every type error, and reports the first like upstream", () => {
    const r = withHeader("port: x\nmaxPods: y\nsyncFrequency: z\n")
    expect(r.issues.map((i) => [i.path, i.line])).toStrictEqual([
      ["port", 3],
      ["maxPods", 4],
      ["syncFrequency", 5]
    ])
    expect(r.error).toBe("failed to decode: json: cannot unmarshal string into Go struct field NodeAgentConfiguration.port of type int32")
  })
})

describe("decoding: strict issues are warnings (configfiles.go)", () => {
  it("accepts unknown fields, naming their full path", () => {
    const r = withHeader("foo: 1\nmaxPods: 20\nauthentication:\n  webhook:\n    bar: true\n")
    expect(r.error).toBeUndefined()
    expect(r.document?.maxPods).toBe(20)
    expect(r.strictError).toBe('strict decoding error: unknown field "foo", unknown field "authentication.webhook.bar"')
    expect(r.issues).toStrictEqual([
      { kind: "unknown field", path: "foo", message: 'unknown field "foo"', line: 3, column: 1 },
      { kind: "unknown field", path: "authentication.webhook.bar", message: 'unknown field "authentication.webhook.bar"', line: 7, column: 5 }
    ])
    expect(lenientDecodingLogLine(r.strictError!)).toBe(
      '"Using lenient decoding as strict decoding failed" err="strict decoding error: unknown field \\"foo\\", unknown field \\"authentication.webhook.bar\\""'
    )
  })

  it("matches field names case-sensitively", () => {
    const r = withHeader("Port: 1\n")
    expect(r.strictError).toBe('strict decoding error: unknown field "Port"')
    expect(r.document?.port).toBeUndefined()
  })

  it("accepts duplicate fields; the later value wins", () => {
    const r = withHeader("maxPods: 20\nmaxPods: 30\nevictionHard:\n  memory.available: 1Gi\n  memory.available: 2Gi\n")
    expect(r.error).toBeUndefined()
    expect(r.document?.maxPods).toBe(30)
    expect(r.document?.evictionHard).toStrictEqual({ "memory.available": "2Gi" })
    expect(r.strictError).toBe(
      'strict decoding error: duplicate field "maxPods", duplicate field "evictionHard[memory.available]"'
    )
    expect(r.issues.map((i) => [i.kind, i.line, i.column])).toStrictEqual([
      ["duplicate field", 4, 1],
      ["duplicate field", 7, 3]
    ])
  })

  it("has no strict error for a clean file", () => {
    const r = withHeader("maxPods: 20\n")
    expect(r.strictError).toBeUndefined()
    expect(r.issues).toStrictEqual([])
  })
})
