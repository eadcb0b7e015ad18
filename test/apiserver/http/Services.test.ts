/**
 * Services over HTTP as kube-apiserver answers them: defaults, a cluster IP and node ports allocated before
 * validation, requested ones honoured or refused with upstream's 422, released on delete, immutable on update.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { httpServer } from "../../support/transports.js"
import { send } from "../../support/wire.js"

const json = { "content-type": "application/json" }
const path = "/api/v1/namespaces/default/services"
const post = (base: string, spec: object, name = "web", query = "") =>
  send(base, "POST", `${path}${query}`, { body: JSON.stringify({ metadata: { name }, spec }), headers: json })

describe("Services", () => {
  it.scoped("a created Service is defaulted and given a cluster IP; the next gets the next one", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const web = yield* post(base, { selector: { app: "web" }, ports: [{ port: 80, targetPort: 8080 }] })
      expect(web.code).toBe(201)
      expect(web.json.spec).toEqual({
        ports: [{ protocol: "TCP", port: 80, targetPort: 8080 }],
        selector: { app: "web" },
        clusterIP: "10.96.1.1",
        clusterIPs: ["10.96.1.1"],
        type: "ClusterIP",
        sessionAffinity: "None",
        ipFamilies: ["IPv4"],
        ipFamilyPolicy: "SingleStack",
        internalTrafficPolicy: "Cluster"
      })
      expect(web.json.status).toEqual({ loadBalancer: {} })
      const np = yield* post(base, { type: "NodePort", ports: [{ port: 80 }] }, "np")
      expect(np.json.spec).toMatchObject({ clusterIP: "10.96.1.2", externalTrafficPolicy: "Cluster", ports: [{ port: 80, targetPort: 80, nodePort: 30086 }] })
    }))

  it.scoped("a requested cluster IP or node port already held: upstream's 422; freed by the delete", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      expect((yield* post(base, { clusterIP: "10.96.0.10", type: "NodePort", ports: [{ port: 53, nodePort: 30053 }] }, "dns")).code).toBe(201)
      const ip = yield* post(base, { clusterIP: "10.96.0.10", ports: [{ port: 80 }] }, "other")
      expect(ip.code).toBe(422)
      expect(ip.json.message).toBe('Service "other" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated')
      expect(ip.json.details).toEqual({
        name: "other",
        kind: "Service",
        causes: [{ reason: "FieldValueInvalid", message: 'Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated', field: "spec.clusterIPs" }]
      })
      const port = yield* post(base, { type: "NodePort", ports: [{ port: 80, nodePort: 30053 }] }, "other")
      expect(port.code).toBe(422)
      expect(port.json.message).toBe('Service "other" is invalid: spec.ports[0].nodePort: Invalid value: 30053: provided port is already allocated')
      // a dry run reserves nothing
      expect((yield* post(base, { clusterIP: "10.96.0.11", ports: [{ port: 80 }] }, "dry", "?dryRun=All")).code).toBe(201)
      expect((yield* post(base, { clusterIP: "10.96.0.11", ports: [{ port: 80 }] }, "real")).code).toBe(201)
      expect((yield* send(base, "DELETE", `${path}/dns`)).code).toBe(200)
      const again = yield* post(base, { clusterIP: "10.96.0.10", type: "NodePort", ports: [{ port: 80, nodePort: 30053 }] }, "other")
      expect(again.code).toBe(201)
    }))

  it.scoped("an update keeps the allocated values a PUT leaves out; changing the cluster IP is refused", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const made = (yield* post(base, { type: "NodePort", ports: [{ name: "http", port: 80 }] })).json
      const put = yield* send(base, "PUT", `${path}/web`, {
        body: JSON.stringify({ metadata: { name: "web", resourceVersion: made.metadata.resourceVersion }, spec: { type: "NodePort", ports: [{ name: "http", port: 80 }] } }),
        headers: json
      })
      expect(put.code).toBe(200)
      expect(put.json.spec).toMatchObject({ clusterIP: "10.96.1.1", ports: [{ nodePort: 30086 }] })
      const moved = yield* send(base, "PATCH", `${path}/web`, { body: JSON.stringify({ spec: { clusterIP: "10.96.5.5" } }), headers: { "content-type": "application/merge-patch+json" } })
      expect(moved.code).toBe(422)
      expect(moved.json.message).toBe('Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.5.5"}: may not change once set')
    }))

  it.scoped("validation: ports required unless headless; a DNS-1035 name", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const noPorts = yield* post(base, { selector: { app: "web" } })
      expect(noPorts.code).toBe(422)
      expect(noPorts.json.message).toBe('Service "web" is invalid: spec.ports: Required value')
      expect((yield* post(base, { clusterIP: "None", selector: { app: "web" } }, "headless")).json.spec).toMatchObject({ clusterIP: "None", clusterIPs: ["None"] })
      const digit = yield* post(base, { ports: [{ port: 80 }] }, "1web")
      expect(digit.code).toBe(422)
      expect(digit.json.message).toBe(
        `Service "1web" is invalid: metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`
      )
    }))

  it.scoped("a namespace's deletion frees its Services' addresses", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      expect((yield* send(base, "POST", "/api/v1/namespaces", { body: JSON.stringify({ metadata: { name: "team" } }), headers: json })).code).toBe(201)
      const inTeam = yield* send(base, "POST", "/api/v1/namespaces/team/services", { body: JSON.stringify({ metadata: { name: "a" }, spec: { ports: [{ port: 80 }] } }), headers: json })
      expect(inTeam.json.spec.clusterIP).toBe("10.96.1.1")
      expect((yield* send(base, "DELETE", "/api/v1/namespaces/team")).code).toBe(200)
      expect((yield* post(base, { ports: [{ port: 80 }] })).json.spec.clusterIP).toBe("10.96.1.1")
    }))
})
