import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { readFileSync } from "node:fs"
import {
  checkCredentialProviderConfig,
  loadCredentialProviderConfig,
  validateCredentialProviderConfig
} from "../../../simulator/nodeagent/credentialprovider/validate.js"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { validateFiles } from "../../../app/cli/validate.js"
import { decodeCredentialProviderConfig } from "../../../simulator/nodeagent/credentialprovider/CredentialProviderConfig.js"

const header = "apiVersion: nodeagent.config.platform/v1beta1\nkind: CredentialProviderConfig\n"
const provider = (fields: string) => `${header}providers:\n  - ${fields.split("\n").join("\n    ")}\n`
const good = "name: ecr\nmatchImages: ['*.dkr.ecr.*.amazonaws.com']\ndefaultCacheDuration: 12h\napiVersion: credentialprovider.nodeagent.platform/v1beta1"
const errorsOf = (text: string) => {
  const decoded = Either.getOrThrow(decodeCredentialProviderConfig(text, "c.yaml"))
  return validateCredentialProviderConfig(decoded).map((e) => e.message)
}

describe("CredentialProviderConfig validation (plugin/config.go)", () => {
  it("accepts the shipped example", () => {
    const file = "scenarios/nodeagent/credential-providers.yaml"
    const r = checkCredentialProviderConfig(readFileSync(file, "utf8"), file)
    expect(r.errors).toStrictEqual([])
    expect(r.config?.providers.map((p) => p.name)).toStrictEqual(["ecr-credential-provider", "registry-token"])
    expect(r.config?.providers[0]?.defaultCacheDuration).toBe(12 * 3_600_000)
    expect(r.config?.providers[1]?.env).toStrictEqual([{ name: "TOKEN_AUDIENCE", value: "nodes" }])
  })

  it("requires at least one provider", () => {
    expect(errorsOf(header + "providers: []\n")).toStrictEqual(["providers: Required value: at least 1 item in plugins is required"])
    expect(errorsOf(header)).toStrictEqual(["providers: Required value: at least 1 item in plugins is required"])
  })

  it("checks names: '/', spaces, '.' and '..'", () => {
    expect(errorsOf(provider(good.replace("name: ecr", "name: bin/ecr")))).toStrictEqual([`providers.name: Invalid value: "bin/ecr": provider name cannot contain '/'`])
    expect(errorsOf(provider(good.replace("name: ecr", "name: my ecr")))).toStrictEqual([`providers.name: Invalid value: "my ecr": provider name cannot contain spaces`])
    expect(errorsOf(provider(good.replace("name: ecr", "name: '.'")))).toStrictEqual([`providers.name: Invalid value: ".": provider name cannot be '.'`])
    expect(errorsOf(provider(good.replace("name: ecr", "name: '..'")))).toStrictEqual([`providers.name: Invalid value: "..": provider name cannot be '..'`])
  })

  it("checks apiVersion: required, and one of the three exchange versions", () => {
    expect(errorsOf(provider(good.replace(/\napiVersion: .*/, "")))).toStrictEqual(["providers.apiVersion: Required value: apiVersion is required"])
    expect(errorsOf(provider(good.replace(/apiVersion: .*/, "apiVersion: credentialprovider.nodeagent.platform/v2")))).toStrictEqual([
      'providers.apiVersion: Unsupported value: "credentialprovider.nodeagent.platform/v2": supported values: "credentialprovider.nodeagent.platform/v1alpha1", "credentialprovider.nodeagent.platform/v1beta1", "credentialprovider.nodeagent.platform/v1"'
    ])
    for (const v of ["v1alpha1", "v1beta1", "v1"]) {
      expect(errorsOf(provider(good.replace(/apiVersion: .*/, `apiVersion: credentialprovider.nodeagent.platform/${v}`)))).toStrictEqual([])
    }
  })

  it("checks matchImages: at least one, each a valid URL", () => {
    expect(errorsOf(provider(good.replace(/matchImages: .*/, "matchImages: []")))).toStrictEqual(["providers.matchImages: Required value: at least 1 item in matchImages is required"])
    expect(errorsOf(provider(good.replace(/matchImages: .*/, "matchImages: ['a b.io', 'ok.io', 'r.io:x']")))).toStrictEqual([
      'providers.matchImages: Invalid value: "a b.io": match image is invalid: parse "https://a b.io": invalid character " " in host name',
      'providers.matchImages: Invalid value: "r.io:x": match image is invalid: parse "https://r.io:x": invalid port ":x" after host'
    ])
  })

  it("checks defaultCacheDuration: required, not negative (printed as a Go duration)", () => {
    expect(errorsOf(provider(good.replace(/defaultCacheDuration: .*/, "")))).toStrictEqual(["providers.defaultCacheDuration: Required value: defaultCacheDuration is required"])
    expect(errorsOf(provider(good.replace(/defaultCacheDuration: .*/, "defaultCacheDuration: -90s")))).toStrictEqual([
      "providers.defaultCacheDuration: Invalid value: -1m30s: defaultCacheDuration must be greater than or equal to 0"
    ])
    expect(errorsOf(provider(good.replace(/defaultCacheDuration: .*/, "defaultCacheDuration: 0s")))).toStrictEqual([])
  })

  it("locates each error at its provider (file:line:col) for clustersim validate", () => {
    const text = `${header}providers:\n  - ${good.split("\n").join("\n    ")}\n  - name: x/y\n    matchImages: []\n    defaultCacheDuration: 1m\n    apiVersion: credentialprovider.nodeagent.platform/v1\n`
    expect(checkCredentialProviderConfig(text, "c.yaml").errors).toStrictEqual([
      `c.yaml:8:5: providers.name: Invalid value: "x/y": provider name cannot contain '/'`,
      "c.yaml:8:5: providers.matchImages: Required value: at least 1 item in matchImages is required"
    ])
  })

  it("decodes leniently (unknown fields ignored), but not a wrong type; wrong kind, unknown version", () => {
    expect(errorsOf(provider(good + "\nsurprise: 1"))).toStrictEqual([])
    expect(checkCredentialProviderConfig(provider(good.replace("defaultCacheDuration: 12h", "defaultCacheDuration: 12")), "c.yaml").errors).toStrictEqual([
      "error decoding config c.yaml: json: cannot unmarshal number into Go value of type string (line 6, column 27, providers[0].defaultCacheDuration)"
    ])
    expect(checkCredentialProviderConfig("apiVersion: nodeagent.config.platform/v1beta1\nkind: NodeAgentConfiguration\n", "c.yaml").errors).toStrictEqual([
      'failed to decode "NodeAgentConfiguration" (wrong Kind)'
    ])
    expect(checkCredentialProviderConfig("apiVersion: nodeagent.config.platform/v2\nkind: CredentialProviderConfig\n", "c.yaml").errors).toStrictEqual([
      'error decoding config c.yaml: no kind "CredentialProviderConfig" is registered for version "nodeagent.config.platform/v2" in scheme "k8s.io/platform/pkg/nodeagent/apis/config/scheme/scheme.go:32"'
    ])
    expect(checkCredentialProviderConfig("kind: CredentialProviderConfig\n", "c.yaml").errors).toStrictEqual([
      "error decoding config c.yaml: Object 'apiVersion' is missing in 'kind: CredentialProviderConfig\n'"
    ])
  })

  it("loads as the node agent does at startup: one aggregated error", () => {
    const read = (text: string) => () => Either.right(text)
    const bad = provider(good.replace("name: ecr", "name: a/b").replace(/matchImages: .*/, "matchImages: []"))
    expect(loadCredentialProviderConfig("c.yaml", read(bad))).toStrictEqual(
      Either.left(`failed to validate credential provider config: [providers.name: Invalid value: "a/b": provider name cannot contain '/', providers.matchImages: Required value: at least 1 item in matchImages is required]`)
    )
    expect(loadCredentialProviderConfig("c.yaml", read(header + "providers: []\n"))).toStrictEqual(
      Either.left("failed to validate credential provider config: providers: Required value: at least 1 item in plugins is required")
    )
    expect(loadCredentialProviderConfig("/nope.yaml", () => Either.left("open /nope.yaml: no such file or directory"))).toStrictEqual(
      Either.left('unable to read external registry credential provider configuration from "/nope.yaml": open /nope.yaml: no such file or directory')
    )
    expect(Either.isRight(loadCredentialProviderConfig("c.yaml", read(provider(good))))).toBe(true)
  })
})

describe("clustersim validate on CredentialProviderConfig files", () => {
  it("exit 0 for the shipped file, 2 with located errors for a bad one", () => {
    const out: Array<string> = []
    expect(validateFiles(["scenarios/nodeagent/credential-providers.yaml"], (s) => void out.push(s), () => {})).toBe(0)
    expect(out).toStrictEqual(["scenarios/nodeagent/credential-providers.yaml: valid CredentialProviderConfig\n"])
    const bad = path.join(mkdtempSync(path.join(tmpdir(), "cpc-")), "bad.yaml")
    writeFileSync(bad, `${header}providers:\n  - name: ecr\n    matchImages: ['*.io']\n    apiVersion: credentialprovider.nodeagent.platform/v1\n`)
    const err: Array<string> = []
    expect(validateFiles([bad], () => {}, (s) => void err.push(s))).toBe(2)
    expect(err).toStrictEqual([`${bad}:4:5: providers.defaultCacheDuration: Required value: defaultCacheDuration is required\n`])
  })
})
