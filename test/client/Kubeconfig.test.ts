/** Kubeconfig loading with real files, and a real TLS round trip (CA verification, client certificate, token). */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import type { TLSSocket } from "node:tls"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Namespaces } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { KubeconfigError, loadKubeconfig, loadKubeconfigContext } from "../../src/client/Kubeconfig.js"
import { fetchServerVersion } from "../../src/client/Probe.js"
import { makePki } from "../support/pki.js"

const dir = mkdtempSync(path.join(os.tmpdir(), "clustersim-kubeconfig-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const write = (name: string, text: string): string => {
  const file = path.join(dir, name)
  writeFileSync(file, text)
  return file
}

const b64 = (s: string) => Buffer.from(s).toString("base64")

/** A kubeconfig with one cluster, the given user fields and two contexts. */
const kubeconfig = (cluster: Record<string, unknown>, user: Record<string, unknown>, extra = "") => `
apiVersion: v1
kind: Config
current-context: main
clusters:
- name: c1
  cluster: ${JSON.stringify(cluster)}
users:
- name: u1
  user: ${JSON.stringify(user)}
contexts:
- name: main
  context: { cluster: c1, user: u1, namespace: team-a }
- name: other
  context: { cluster: c1, user: nobody }
${extra}`

const failure = (file: string, context?: string) => Effect.flip(loadKubeconfig(file, { context }))

describe("kubeconfig files", () => {
  it.effect("current-context by default; token, namespace and server", () =>
    Effect.gen(function* () {
      const file = write("token.yaml", kubeconfig({ server: "https://10.0.0.1:6443" }, { token: "abc" }))
      const resolved = yield* loadKubeconfigContext(file)
      expect(resolved).toEqual({ file, context: "main", namespace: "team-a", client: { baseUrl: "https://10.0.0.1:6443", token: "abc" } })
    }))

  it.effect("tokenFile relative to the kubeconfig's directory, read at once; with an inline token both are kept", () =>
    Effect.gen(function* () {
      write("token.txt", "from-file\n")
      const fromFile = yield* loadKubeconfig(write("tf.yaml", kubeconfig({ server: "http://127.0.0.1:1" }, { tokenFile: "token.txt" })))
      expect(fromFile).toEqual({ baseUrl: "http://127.0.0.1:1", token: "from-file", tokenFile: path.join(dir, "token.txt") })
      // client-go keeps both: the file is re-read for every request, the inline token is the fallback
      const both = yield* loadKubeconfig(write("tf2.yaml", kubeconfig({ server: "http://127.0.0.1:1" }, { tokenFile: "token.txt", token: "inline" })))
      expect(both).toEqual({ baseUrl: "http://127.0.0.1:1", token: "inline", tokenFile: path.join(dir, "token.txt") })
      const empty = write("tf3.yaml", kubeconfig({ server: "http://127.0.0.1:1" }, { tokenFile: write("empty.txt", " \n") }))
      expect((yield* failure(empty)).message).toBe(`kubeconfig ${empty}: user "u1": tokenFile: ${path.join(dir, "empty.txt")} is empty`)
      const absent = write("tf4.yaml", kubeconfig({ server: "http://127.0.0.1:1" }, { tokenFile: "nope.txt" }))
      expect((yield* failure(absent)).message).toMatch(new RegExp(`^kubeconfig ${absent}: user "u1": tokenFile: cannot read ${path.join(dir, "nope.txt")}: ENOENT`))
    }))

  it.effect("-data fields (base64) and path fields give the same PEM", () =>
    Effect.gen(function* () {
      write("ca.pem", "CA PEM")
      write("cert.pem", "CERT PEM")
      write("key.pem", "KEY PEM")
      const byPath = yield* loadKubeconfig(
        write("paths.yaml", kubeconfig({ server: "https://h:1", "certificate-authority": "ca.pem" }, { "client-certificate": "cert.pem", "client-key": path.join(dir, "key.pem") }))
      )
      const byData = yield* loadKubeconfig(
        write(
          "data.yaml",
          kubeconfig(
            { server: "https://h:1", "certificate-authority-data": b64("CA PEM") },
            { "client-certificate-data": b64("CERT PEM"), "client-key-data": b64("KEY PEM") }
          )
        )
      )
      expect(byPath.tls).toEqual({ ca: "CA PEM", cert: "CERT PEM", key: "KEY PEM" })
      expect(byData.tls).toEqual(byPath.tls)
    }))

  it.effect("--context picks another context; insecure-skip-tls-verify; a context without a user is anonymous", () =>
    Effect.gen(function* () {
      const file = write(
        "multi.yaml",
        kubeconfig({ server: "https://h:1", "insecure-skip-tls-verify": true }, { token: "t" }, `- name: third\n  context: { cluster: c1 }\n`)
      )
      const third = yield* loadKubeconfigContext(file, { context: "third" })
      expect(third).toEqual({ file, context: "third", client: { baseUrl: "https://h:1", tls: { insecureSkipVerify: true } } })
    }))

  it.effect("users clustersim cannot authenticate as are errors, never anonymous", () =>
    Effect.gen(function* () {
      const basic = write("basic.yaml", kubeconfig({ server: "https://h:1" }, { username: "admin", password: "pw" }))
      expect((yield* failure(basic)).message).toBe(
        `kubeconfig ${basic}: user "u1": username/password: basic authentication is not supported (API servers dropped it in 1.19); use a token, a client certificate or an exec plugin`
      )
      const provider = write("provider.yaml", kubeconfig({ server: "https://h:1" }, { "auth-provider": { name: "gcp", config: { "access-token": "x" } } }))
      expect((yield* failure(provider)).message).toBe(
        `kubeconfig ${provider}: user "u1": auth-provider: "gcp" is not supported; use an exec credential plugin (client.authentication.k8s.io), as kubectl does since 1.26`
      )
      const impersonate = write("as.yaml", kubeconfig({ server: "https://h:1" }, { token: "t", as: "bob" }))
      expect((yield* failure(impersonate)).message).toBe(`kubeconfig ${impersonate}: user "u1": as: impersonation is not supported`)
    }))

  const execUser = (exec: Record<string, unknown>) => ({ exec: { apiVersion: "client.authentication.k8s.io/v1", interactiveMode: "Never", ...exec } })

  it.effect("exec users: command relative to the kubeconfig when it has a '/', else from PATH; env, args, cluster info", () =>
    Effect.gen(function* () {
      const file = write(
        "exec.yaml",
        kubeconfig(
          { server: "https://h:1", "certificate-authority-data": b64("CA PEM") },
          execUser({ command: "./bin/plugin", args: ["get-token", "--x"], env: [{ name: "A", value: "1" }], installHint: "install it", provideClusterInfo: true })
        )
      )
      expect(yield* loadKubeconfig(file)).toEqual({
        baseUrl: "https://h:1",
        tls: { ca: "CA PEM" },
        exec: {
          config: {
            command: path.join(dir, "bin/plugin"),
            args: ["get-token", "--x"],
            env: [{ name: "A", value: "1" }],
            apiVersion: "client.authentication.k8s.io/v1",
            interactiveMode: "Never",
            installHint: "install it",
            provideClusterInfo: true
          },
          cluster: { server: "https://h:1", "certificate-authority-data": b64("CA PEM") }
        }
      })
      const onPath = yield* loadKubeconfig(write("exec2.yaml", kubeconfig({ server: "https://h:1" }, { exec: { apiVersion: "client.authentication.k8s.io/v1beta1", command: "aws", args: null, env: null } })))
      // v1beta1 without interactiveMode defaults to IfAvailable (clientcmd's v1 defaulting)
      expect(onPath.exec).toEqual({
        config: { command: "aws", args: [], env: [], apiVersion: "client.authentication.k8s.io/v1beta1", interactiveMode: "IfAvailable", provideClusterInfo: false }
      })
    }))

  it.effect("exec users are validated with client-go's texts", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<[Record<string, unknown>, string]> = [
        [execUser({ command: "" }), `user "u1": exec: command must be specified for u1 to use exec authentication plugin`],
        [execUser({ command: "p", apiVersion: "" }), `user "u1": exec: apiVersion must be specified for u1 to use exec authentication plugin`],
        [execUser({ command: "p", env: [{ value: "x" }] }), `user "u1": exec: env variable name must be specified for u1 to use exec authentication plugin`],
        [execUser({ command: "p", interactiveMode: "" }), `user "u1": exec: interactiveMode must be specified for u1 to use exec authentication plugin`],
        [execUser({ command: "p", interactiveMode: "Sometimes" }), `user "u1": exec: invalid interactiveMode for u1: "Sometimes"`],
        [execUser({ command: "p", apiVersion: "client.authentication.k8s.io/v1alpha1" }), `user "u1": exec: exec plugin: invalid apiVersion "client.authentication.k8s.io/v1alpha1"`],
        [{ ...execUser({ command: "p" }), "auth-provider": { name: "oidc" } }, `user "u1": exec: authProvider cannot be provided in combination with an exec plugin for u1`]
      ]
      for (const [user, detail] of cases) {
        const file = write("exec-bad.yaml", kubeconfig({ server: "https://h:1" }, user))
        expect((yield* failure(file)).message).toBe(`kubeconfig ${file}: ${detail}`)
      }
    }))

  it.effect("errors name the file and the field", () =>
    Effect.gen(function* () {
      const file = write("errors.yaml", kubeconfig({ server: "https://h:1" }, { "client-certificate": "missing.crt", "client-key": "missing.key" }))
      const notFound = yield* failure(file, "nope")
      expect(notFound).toBeInstanceOf(KubeconfigError)
      expect(notFound.message).toBe(`kubeconfig ${file}: context "nope" not found`)
      expect((yield* failure(file, "other")).message).toBe(`kubeconfig ${file}: context "other": user "nobody" not found`)
      const unreadable = yield* failure(file)
      expect(unreadable.message).toMatch(new RegExp(`^kubeconfig ${file}: user "u1": client-certificate: cannot read ${path.join(dir, "missing.crt")}: ENOENT`))

      const noServer = write("noserver.yaml", kubeconfig({}, { token: "t" }))
      expect((yield* failure(noServer)).message).toBe(`kubeconfig ${noServer}: cluster "c1": server: missing`)
      const both = write("both.yaml", kubeconfig({ server: "https://h:1", "certificate-authority-data": b64("x"), "insecure-skip-tls-verify": true }, {}))
      expect((yield* failure(both)).message).toContain("insecure-skip-tls-verify: specifying a root certificates file with the insecure flag is not allowed")
      const halfCert = write("half.yaml", kubeconfig({ server: "https://h:1" }, { "client-certificate-data": b64("c") }))
      expect((yield* failure(halfCert)).message).toContain(`user "u1": client-key: missing`)
      const badType = write("badtype.yaml", "clusters:\n- name: c1\n  cluster: { server: 5 }\n")
      expect((yield* failure(badType)).message).toMatch(/^kubeconfig .*badtype\.yaml: clusters\.0\.cluster\.server: Expected string, actual 5/)
      const badYaml = write("bad.yaml", "clusters: [\n")
      expect((yield* failure(badYaml)).message).toMatch(/^kubeconfig .*bad\.yaml: invalid YAML/)
      const missing = path.join(dir, "absent.yaml")
      expect((yield* failure(missing)).message).toMatch(new RegExp(`^kubeconfig ${missing}: cannot read: ENOENT`))
      const noCurrent = write("nocurrent.yaml", "contexts: []\n")
      expect((yield* failure(noCurrent)).message).toContain("no context given and current-context is not set")
    }))
})

// ---- TLS round trip ---------------------------------------------------------------------------------------

describe("kubeconfig over TLS", () => {
  const pkiDir = path.join(dir, "pki")
  let server: https.Server
  let url = ""
  const seen: Array<{ authorization: string | undefined; clientCn: string | undefined; path: string | undefined }> = []

  beforeAll(async () => {
    const pki = makePki(pkiDir)
    // requestCert without rejecting: the test reads which client certificate (if any) arrived
    server = https.createServer({ key: pki.serverKey, cert: pki.serverCert, ca: pki.ca, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const socket = req.socket as TLSSocket
      const peer = socket.authorized ? socket.getPeerCertificate() : undefined
      seen.push({ authorization: req.headers.authorization, clientCn: peer?.subject?.CN as string | undefined, path: req.url })
      if (req.url === "/version") return void res.writeHead(200, { "content-type": "application/json" }).end('{"major":"1","minor":"26","gitVersion":"v1.26.15"}')
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ kind: "NamespaceList", apiVersion: "v1", metadata: { resourceVersion: "7" }, items: [{ metadata: { name: "default" } }] }))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  const listNamespaces = (file: string) =>
    Effect.flatMap(loadKubeconfig(file), (options) =>
      Effect.flatMap(ApiClient, (api) => api.list(Namespaces)).pipe(Effect.provide(ApiClient.layerHttp(options)))
    )

  it.live("verifies the server against the kubeconfig's CA; sends the token and the client certificate", () =>
    Effect.gen(function* () {
      const file = write(
        "tls.yaml",
        kubeconfig(
          { server: url, "certificate-authority": "pki/ca.crt" },
          { token: "s3cret", "client-certificate": "pki/client.crt", "client-key-data": b64(readFileSync(path.join(pkiDir, "client.key"), "utf8")) }
        )
      )
      const list = yield* listNamespaces(file)
      expect(list.items.map((n) => n.metadata.name)).toEqual(["default"])
      expect(seen.at(-1)).toEqual({ authorization: "Bearer s3cret", clientCn: "alice", path: "/api/v1/namespaces" })
    }))

  it.live("without the CA the certificate does not verify", () =>
    Effect.gen(function* () {
      const file = write("noca.yaml", kubeconfig({ server: url }, { token: "s3cret" }))
      const error = yield* Effect.flip(listNamespaces(file))
      // no answer: the transport's TLS error with the target's URL, not a 503 nobody sent
      expect(error).toMatchObject({ _tag: "TransportError", reason: "Transport" })
      expect(error.message).toBe(`TLS: ${(error as { cause: Error }).cause.message} (${(error as { errorCode: string }).errorCode}): ${url}`)
      expect(error.message).toMatch(/^TLS: .*(certificate|self.signed|verify)/i)
    }))

  it.live("insecure-skip-tls-verify connects without the CA", () =>
    Effect.gen(function* () {
      const file = write("insecure.yaml", kubeconfig({ server: url, "insecure-skip-tls-verify": true }, { token: "t2" }))
      const list = yield* listNamespaces(file)
      expect(list.metadata.resourceVersion).toBe("7")
      expect(seen.at(-1)).toEqual({ authorization: "Bearer t2", clientCn: undefined, path: "/api/v1/namespaces" })
    }))

  it.live("the /version probe uses the kubeconfig's CA, client certificate and token", () =>
    Effect.gen(function* () {
      const file = write(
        "probe.yaml",
        kubeconfig({ server: url, "certificate-authority": "pki/ca.crt" }, { token: "p", "client-certificate": "pki/client.crt", "client-key": "pki/client.key" })
      )
      const options = yield* loadKubeconfig(file)
      expect(yield* fetchServerVersion(options)).toBe("v1.26.15")
      expect(seen.at(-1)).toEqual({ authorization: "Bearer p", clientCn: "alice", path: "/version" })
      // Without the CA the server does not verify: no version, rather than a version from an unverified peer.
      expect(yield* fetchServerVersion({ baseUrl: url })).toBeUndefined()
    }))
})
