/** `serve --tls`: the generated PKI, HTTPS with the CA, and a kubeconfig that reaches the server. */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { parse } from "yaml"
import { generatePki, subjectAltNames, writeKubeconfig } from "../../../simulator/apiserver/auth/Certificates.js"
import { ApiServer } from "../../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../../simulator/apiserver/HttpServer.js"
import { Namespaces } from "../../../src/api/Resources.js"
import { ApiClient } from "../../../src/client/ApiClient.js"

const pki = Effect.runPromise(generatePki(mkdtempSync(path.join(tmpdir(), "clustersim-pki-")), "127.0.0.1"))

describe("TLS serving", () => {
  it("subject alternative names cover the bound host and loopback", () => {
    expect(subjectAltNames("127.0.0.1")).toBe("DNS:localhost,IP:127.0.0.1")
    expect(subjectAltNames("10.0.0.5")).toBe("DNS:localhost,IP:127.0.0.1,IP:10.0.0.5")
    expect(subjectAltNames("sim.example")).toBe("DNS:localhost,IP:127.0.0.1,DNS:sim.example")
    expect(subjectAltNames("0.0.0.0")).toBe("DNS:localhost,IP:127.0.0.1")
  })

  it.live("an https URL; a client trusting the CA lists namespaces, one without it is refused", () =>
    Effect.gen(function* () {
      const p = yield* Effect.promise(() => pki)
      const server = yield* serveHttp({ host: "127.0.0.1", port: 0, admin: false, tls: p.tls })
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
      const trusted = Context.get(yield* Layer.build(ApiClient.layerHttp({ baseUrl: server.url, tls: { ca: readFileSync(p.caFile, "utf8") } })), ApiClient)
      const list = yield* trusted.list(Namespaces)
      expect(list.items.map((n) => n.metadata.name)).toContain("default")
      const untrusted = Context.get(yield* Layer.build(ApiClient.layerHttp({ baseUrl: server.url })), ApiClient)
      const refused = yield* Effect.either(untrusted.list(Namespaces))
      expect(refused._tag).toBe("Left")
    }).pipe(Effect.provide(ApiServer.layer()), Effect.scoped))

  it.live("the kubeconfig names the server, the CA and the admin client certificate", () =>
    Effect.gen(function* () {
      const p = yield* Effect.promise(() => pki)
      const file = yield* writeKubeconfig("https://127.0.0.1:6443", p)
      expect(file).toBe(path.join(p.dir, "kubeconfig"))
      const config = parse(readFileSync(file, "utf8"))
      expect(config.clusters[0].cluster).toEqual({ server: "https://127.0.0.1:6443", "certificate-authority": p.caFile })
      expect(config.users[0].user).toEqual({ "client-certificate": p.adminCertFile, "client-key": p.adminKeyFile })
      expect(config["current-context"]).toBe("clustersim")
    }))
})
