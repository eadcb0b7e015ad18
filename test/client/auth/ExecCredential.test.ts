/** A plugin's stdout decoded with client-go's checks and texts. */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { decodeExecOutput, execInfo, type ExecConfig } from "../../../src/client/auth/ExecCredential.js"
import { makePki } from "../../support/pki.js"
import { mkdtempSync, rmSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const v1: ExecConfig = { command: "p", args: [], env: [], apiVersion: "client.authentication.k8s.io/v1", interactiveMode: "Never", provideClusterInfo: false }
const answer = (status: unknown, apiVersion = "client.authentication.k8s.io/v1") => JSON.stringify({ kind: "ExecCredential", apiVersion, status })
const error = (stdout: string) => Either.getLeft(decodeExecOutput(v1, stdout)).pipe((o) => (o._tag === "Some" ? o.value.message : "no error"))

describe("ExecCredential answers", () => {
  it("a token, with and without an expiry (RFC 3339, fraction allowed)", () => {
    expect(decodeExecOutput(v1, answer({ token: "t" }))).toEqual(Either.right({ credential: { token: "t" } }))
    expect(decodeExecOutput(v1, answer({ token: "t", expirationTimestamp: "2026-11-26T16:00:00Z" }))).toEqual(
      Either.right({ credential: { token: "t" }, expiresAt: Date.parse("2026-11-26T16:00:00Z") })
    )
    expect(decodeExecOutput(v1, answer({ token: "t", expirationTimestamp: "2026-11-26T17:00:00.5+01:00" }))).toEqual(
      Either.right({ credential: { token: "t" }, expiresAt: Date.parse("2026-11-26T16:00:00.500Z") })
    )
  })

  it("client-go's texts for every refused answer", () => {
    expect(error("not json")).toMatch(/^decoding stdout: couldn't get version\/kind; json parse error: /)
    expect(error('{"apiVersion":"client.authentication.k8s.io/v1"}')).toBe(`decoding stdout: Object 'Kind' is missing in '{"apiVersion":"client.authentication.k8s.io/v1"}'`)
    expect(error('{"kind":"ExecCredential"}')).toBe(`decoding stdout: Object 'apiVersion' is missing in '{"kind":"ExecCredential"}'`)
    expect(error(answer({ token: "t" }, "client.authentication.k8s.io/v1alpha1"))).toBe(
      'decoding stdout: no kind "ExecCredential" is registered for version "client.authentication.k8s.io/v1alpha1" in scheme'
    )
    expect(error(answer({ token: "t" }, "client.authentication.k8s.io/v1beta1"))).toBe(
      "exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin returned version client.authentication.k8s.io/v1beta1"
    )
    expect(error(JSON.stringify({ kind: "ExecCredential", apiVersion: "client.authentication.k8s.io/v1" }))).toBe("exec plugin didn't return a status field")
    expect(error(answer({}))).toBe("exec plugin didn't return a token or cert/key pair")
    expect(error(answer({ token: "t", clientCertificateData: "C" }))).toBe("exec plugin returned only certificate or key, not both")
    expect(error(answer({ token: 5 }))).toBe("decoding stdout: status.token: Expected string, actual 5")
    expect(error(answer({ token: "t", expirationTimestamp: "tomorrow" }))).toBe('decoding stdout: parsing time "tomorrow" as RFC 3339: cannot parse')
    expect(error(answer({ clientCertificateData: "C", clientKeyData: "K" }))).toMatch(/^failed parsing client key\/certificate: /)
  })

  it("the exec info: spec.interactive, spec.cluster only with provideClusterInfo", () => {
    expect(JSON.parse(execInfo(v1, true, { server: "https://h:1" }))).toEqual({ kind: "ExecCredential", apiVersion: "client.authentication.k8s.io/v1", spec: { interactive: true } })
    expect(JSON.parse(execInfo({ ...v1, provideClusterInfo: true }, false, { server: "https://h:1" })).spec).toEqual({ cluster: { server: "https://h:1" }, interactive: false })
  })

  it("a client certificate and key: a matching pair passes, another key is refused", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "clustersim-execcert-"))
    try {
      const pki = makePki(dir, [{ cn: "alice" }, { cn: "bob" }])
      const alice = pki.clients.alice!
      expect(decodeExecOutput(v1, answer({ clientCertificateData: alice.cert, clientKeyData: alice.key }))).toEqual(
        Either.right({ credential: { clientCertificate: { cert: alice.cert, key: alice.key } } })
      )
      expect(error(answer({ clientCertificateData: alice.cert, clientKeyData: pki.clients.bob!.key }))).toBe(
        "failed parsing client key/certificate: private key does not match public key"
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
