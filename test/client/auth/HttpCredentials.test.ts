/**
 * Credentials over the wire: the HTTP transport sends the source's token, tells it of a 401 (an exec plugin runs
 * again; the refused request is not retried, as in client-go), for watches too; an exec plugin's client
 * certificate is presented over real TLS.
 */
import { mkdtempSync, rmSync } from "node:fs"
import * as http from "node:http"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import type { TLSSocket } from "node:tls"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Stream } from "effect"
import { ConfigMaps, Namespaces } from "../../../src/api/Resources.js"
import { ApiClient } from "../../../src/client/ApiClient.js"
import type { HttpClientOptions } from "../../../src/client/HttpTransport.js"
import { childProcessRunner } from "../../../src/client/auth/ExecPlugin.js"
import type { ExecSourceOptions } from "../../../src/client/auth/ExecAuthenticator.js"
import { pluginState, writeExecPlugin } from "../../support/execPlugin.js"
import { makePki } from "../../support/pki.js"
import { serverAnswer } from "../../support/serverAnswer.js"

const dir = mkdtempSync(path.join(os.tmpdir(), "clustersim-httpcreds-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const plugin = writeExecPlugin(dir)
let states = 0

const execOptions = (env: Record<string, string>): { options: ExecSourceOptions; state: ReturnType<typeof pluginState> } => {
  const state = pluginState(path.join(dir, `state-${++states}`))
  return {
    state,
    options: {
      config: {
        command: plugin,
        args: [],
        env: [{ name: "STATE", value: state.dir }, ...Object.entries(env).map(([name, value]) => ({ name, value }))],
        apiVersion: "client.authentication.k8s.io/v1",
        interactiveMode: "Never",
        provideClusterInfo: false
      },
      run: childProcessRunner({ stderr: "ignore" })
    }
  }
}

/** The HTTP client, alive for the test's scope. */
const httpClient = (options: HttpClientOptions) => Effect.map(Layer.build(ApiClient.layerHttp(options)), (ctx) => Context.get(ctx, ApiClient))

const unauthorized = JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 })

/** A server that accepts the tokens in `valid`: lists answer one namespace, watches one ADDED event and then hold. */
const tokenServer = (handler: (req: http.IncomingMessage, res: http.ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; server: http.Server }>((resume) => {
      const server = http.createServer(handler)
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })))
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

const answer = (valid: Set<string>, seen: Array<string>) => (req: http.IncomingMessage, res: http.ServerResponse) => {
  if (req.url === "/apis") return void res.writeHead(404).end()
  const auth = req.headers.authorization ?? ""
  seen.push(`${req.url?.includes("watch=true") ? "watch" : "list"} ${auth}`)
  if (!valid.has(auth.replace(/^Bearer /, ""))) return void res.writeHead(401, { "content-type": "application/json" }).end(unauthorized)
  if (req.url?.includes("watch=true")) {
    res.writeHead(200, { "content-type": "application/json" })
    return void res.write(JSON.stringify({ type: "ADDED", object: { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "a", namespace: "default", resourceVersion: "2" } } }) + "\n")
  }
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ kind: "NamespaceList", apiVersion: "v1", metadata: { resourceVersion: "7" }, items: [{ metadata: { name: "default" } }] }))
}

describe("credentials over HTTP", () => {
  it.scopedLive("exec: a 401 runs the plugin again; the refused request is not retried, the next one succeeds", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const { url } = yield* tokenServer(answer(new Set(["tok-2"]), seen))
      const { options, state } = execOptions({})
      const api = yield* httpClient({ baseUrl: url, exec: options })
      const refused = yield* serverAnswer(api.list(Namespaces))
      expect(refused.status).toMatchObject({ code: 401, reason: "Unauthorized", message: "Unauthorized" })
      expect((yield* api.list(Namespaces)).items.map((n) => n.metadata.name)).toEqual(["default"])
      expect(seen).toEqual(["list Bearer tok-1", "list Bearer tok-2"])
      expect(state.runs()).toBe(2)
    }))

  it.scopedLive("exec: a watch refused 401 runs the plugin again; the next watch opens", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const { url } = yield* tokenServer(answer(new Set(["tok-2"]), seen))
      const { options, state } = execOptions({})
      const api = yield* httpClient({ baseUrl: url, exec: options })
      const refused = yield* serverAnswer(Stream.runDrain(api.watch(ConfigMaps, { namespace: "default" })))
      expect(refused.status.code).toBe(401)
      const events = yield* Stream.runCollect(Stream.take(api.watch(ConfigMaps, { namespace: "default" }), 1))
      expect([...events].map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED a"])
      expect(seen).toEqual(["watch Bearer tok-1", "watch Bearer tok-2"])
      expect(state.runs()).toBe(2)
    }))

  it.scopedLive("a failing plugin: no request goes out; the error says why", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const { url } = yield* tokenServer(answer(new Set(), seen))
      const { options } = execOptions({ EXIT: "1" })
      const api = yield* httpClient({ baseUrl: url, exec: options })
      const error = yield* Effect.flip(api.list(Namespaces))
      // client-go fails the round trip before sending (exec.go): no answer, so no Status — a transport error
      expect(error._tag).toBe("TransportError")
      expect(error.message).toBe(`getting credentials: exec: executable ${plugin} failed with exit code 1: ${url}`)
      expect(seen).toEqual([])
    }))

  it.scopedLive("a token wins over an exec plugin, as client-go's UpdateTransportConfig has it", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const { url } = yield* tokenServer(answer(new Set(["inline"]), seen))
      const { options, state } = execOptions({})
      const api = yield* httpClient({ baseUrl: url, token: "inline", exec: options })
      yield* api.list(Namespaces)
      expect(seen).toEqual(["list Bearer inline"])
      expect(state.runs()).toBe(0)
    }))
})

describe("an exec plugin's client certificate over TLS", () => {
  it.scopedLive("the certificate the plugin returns is presented in the handshake", () =>
    Effect.gen(function* () {
      const pki = makePki(path.join(dir, "pki"), [{ cn: "alice", groups: ["team-a"] }])
      const alice = pki.clients.alice!
      const subjects: Array<string> = []
      const server = yield* Effect.acquireRelease(
        Effect.async<https.Server>((resume) => {
          const s = https.createServer({ key: pki.serverKey, cert: pki.serverCert, ca: pki.ca, requestCert: true, rejectUnauthorized: true }, (req, res) => {
            if (req.url === "/apis") return void res.writeHead(404).end()
            const peer = (req.socket as TLSSocket).getPeerCertificate()
            subjects.push(`${peer.subject.CN}/${peer.subject.O}`)
            res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ kind: "NamespaceList", apiVersion: "v1", metadata: {}, items: [] }))
          })
          s.listen(0, "127.0.0.1", () => void resume(Effect.succeed(s)))
        }),
        (s) =>
          Effect.async<void>((resume) => {
            s.closeAllConnections()
            s.close(() => resume(Effect.void))
          })
      )
      const status = { clientCertificateData: alice.cert, clientKeyData: alice.key }
      const { options } = execOptions({ ANSWER: JSON.stringify({ kind: "ExecCredential", apiVersion: "client.authentication.k8s.io/v1", status }) })
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
      const api = yield* httpClient({ baseUrl: url, tls: { ca: pki.ca }, exec: options })
      yield* api.list(Namespaces)
      expect(subjects).toEqual(["alice/team-a"])
    }))
})
