/**
 * The audit's stage logic as upstream's audit filter (`filters/audit.go`) and the audit of in-process requests: a
 * request that wrote no status is recorded 200 "Connection closed early" (a long-running one gets a faked
 * ResponseStarted first); a defect is the Panic stage alone; an in-process component's calls are recorded as the HTTP
 * requests they stand for (requestURI, verb, objectRef, its user, the code, the bodies), including the immediate view.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Schema, Stream } from "effect"
import { Event } from "../../../src/api/audit/Event.js"
import type { Policy } from "../../../src/api/audit/Policy.js"
import { ConfigMaps, Leases } from "../../../src/api/Resources.js"
import { ApiServer } from "../../../simulator/apiserver/ApiServer.js"
import { auditedClient, callURI } from "../../../simulator/apiserver/audit/AuditedClient.js"
import { Auditor } from "../../../simulator/apiserver/audit/Auditor.js"
import { makePolicyRuleEvaluator } from "../../../simulator/apiserver/audit/PolicyChecker.js"
import { nodeAgentCredentials } from "../../../simulator/apiserver/auth/ComponentIdentities.js"
import { nodeUser } from "../../../simulator/apiserver/auth/UserInfo.js"
import { inProcessClient } from "../../../simulator/apiserver/InProcessClient.js"

const policy = (rules: Policy["rules"]): Policy => ({ kind: "Policy", apiVersion: "audit.k8s.io/v1", rules })

const auditorOf = (rules: Policy["rules"]) => {
  const lines: string[] = []
  let now = 1_764_415_800_123_456_000n
  const auditor = new Auditor(makePolicyRuleEvaluator(policy(rules)), { write: (l) => lines.push(l) }, () => (now += 1_000n))
  return { auditor, events: () => lines.map((l) => JSON.parse(l) as Record<string, any>) }
}

const request = (verb: string, resource: string) => ({
  auditID: "a-1",
  requestURI: `/api/v1/${resource}`,
  user: nodeUser("n1"),
  sourceIPs: ["127.0.0.1"],
  userAgent: "",
  attrs: { resourceRequest: true as const, verb, apiGroup: "", apiVersion: "v1", resource, subresource: "", namespace: "", name: "" },
  receivedNanos: 1_764_415_800_123_456_789n
})

describe("audit stages", () => {
  it("RequestReceived is stamped with the arrival time; the timestamps are microseconds, UTC", () => {
    const { auditor, events } = auditorOf([{ level: "Metadata" }])
    auditor.begin(request("list", "pods"))!.complete()
    const [received, complete] = events()
    expect(received!.requestReceivedTimestamp).toBe("2025-11-29T11:30:00.123456Z")
    expect(received!.stageTimestamp).toBe("2025-11-29T11:30:00.123456Z")
    expect(complete!.stageTimestamp).toBe("2025-11-29T11:30:00.123457Z")
  })

  it("no status written: ResponseComplete with upstream's faked 200 'Connection closed early'; a watch gets a ResponseStarted too", () => {
    const { auditor, events } = auditorOf([{ level: "Metadata" }])
    auditor.begin(request("list", "pods"))!.complete()
    auditor.begin(request("watch", "pods"))!.complete()
    const faked = { metadata: {}, code: 200, status: "Success", message: "Connection closed early" }
    expect(events().map((e) => [e.verb, e.stage, e.responseStatus])).toEqual([
      ["list", "RequestReceived", undefined],
      ["list", "ResponseComplete", faked],
      ["watch", "RequestReceived", undefined],
      ["watch", "ResponseStarted", faked],
      ["watch", "ResponseComplete", faked]
    ])
  })

  it("upstream's own lines decode with the Event Schema; ours are written in their key order", () => {
    // kube-apiserver lines (a kubectl create on minikube; a watch whose client went away)
    const created =
      '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"6c3b62fc-41e7-4f74-b8aa-82e943039013","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/default/pods?fieldManager=kubectl-run","verb":"create","user":{"username":"minikube-user","groups":["system:masters","system:authenticated"]},"sourceIPs":["192.168.64.1"],"userAgent":"kubectl/v1.23.5 (darwin/amd64) kubernetes/c285e78","objectRef":{"resource":"pods","namespace":"default","name":"nginx","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":201},"requestReceivedTimestamp":"2022-05-18T15:48:37.388237Z","stageTimestamp":"2022-05-18T15:48:37.395604Z","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}'
    const closedEarly = '{"metadata":{},"status":"Success","message":"Connection closed early","code":200}'
    expect(Schema.decodeUnknownSync(Event)(JSON.parse(created)).objectRef?.name).toBe("nginx")
    const { auditor, events } = auditorOf([{ level: "Metadata" }])
    const audit = auditor.begin({ ...request("create", "pods"), requestURI: "/api/v1/namespaces/default/pods?fieldManager=kubectl-run", userAgent: "kubectl/v1.23.5 (darwin/amd64) kubernetes/c285e78" })!
    audit.annotate("authorization.k8s.io/decision", "allow")
    audit.annotate("authorization.k8s.io/reason", "")
    audit.requestBody({ metadata: { name: "nginx", namespace: "default" } })
    audit.responseStarted(201)
    audit.complete()
    const ours = events()[1]!
    expect(Object.keys(ours)).toEqual(Object.keys(JSON.parse(created)))
    for (const e of events()) Schema.decodeUnknownSync(Event)(e)
    auditor.begin(request("watch", "pods"))!.complete()
    expect(JSON.stringify(events().at(-1)!.responseStatus)).toBe(closedEarly)
  })

  it("a defect: the Panic stage with upstream's 500, and no ResponseComplete after", () => {
    const { auditor, events } = auditorOf([{ level: "Metadata" }])
    const audit = auditor.begin(request("get", "pods"))!
    audit.panic("Error: boom")
    audit.complete()
    expect(events().map((e) => [e.stage, e.responseStatus])).toEqual([
      ["RequestReceived", undefined],
      ["Panic", { metadata: {}, status: "Failure", message: "APIServer panic'd: Error: boom", reason: "InternalError", code: 500 }]
    ])
  })

  it("omitManagedFields drops metadata.managedFields from the bodies, of a list's items too", () => {
    const { auditor, events } = auditorOf([{ level: "RequestResponse", omitManagedFields: true }])
    const audit = auditor.begin(request("list", "pods"))!
    const managed = { metadata: { name: "p", managedFields: [{ manager: "kubectl" }] } }
    audit.requestBody(managed)
    audit.responseBody({ kind: "PodList", items: [managed] })
    audit.responseStarted(200)
    audit.complete()
    const complete = events()[1]!
    expect(complete.requestObject).toEqual({ metadata: { name: "p" } })
    expect(complete.responseObject).toEqual({ kind: "PodList", items: [{ metadata: { name: "p" } }] })
  })
})

describe("in-process requests, audited", () => {
  it("the URL the HTTP client would send: path and the set query parameters, keys sorted", () => {
    expect(callURI("watch", Leases, "platform-node-lease", undefined, undefined, { watch: true, resourceVersion: "5", allowWatchBookmarks: true, labelSelector: undefined })).toBe(
      "/apis/coordination.platform/v1/namespaces/platform-node-lease/leases?allowWatchBookmarks=true&resourceVersion=5&watch=true"
    )
    expect(callURI("update", ConfigMaps, "default", "c", undefined, { dryRun: ["All"] })).toBe("/api/v1/namespaces/default/configmaps/c?dryRun=All")
  })

  it.effect("a node agent's calls (effects and the immediate view) under system:node:<name>, with the codes and bodies", () =>
    Effect.gen(function* () {
      const server = yield* ApiServer
      const { auditor, events } = auditorOf([{ level: "RequestResponse" }])
      const client = auditedClient(auditor, server.access, nodeUser("n1"), inProcessClient(server, nodeAgentCredentials("n1")), "clustersim/node-agent")
      const created = yield* client.create(ConfigMaps, { metadata: { name: "c" }, data: { k: "v" } }, { namespace: "default" })
      expect(created.code).toBe(201)
      const missing = client.at(0)!.get(ConfigMaps, "nope", { namespace: "default" })
      expect(Either.isEither(missing) && Either.isLeft(missing)).toBe(true)
      const watched = yield* client.watch(ConfigMaps, { namespace: "default", resourceVersion: "0" }).pipe(Stream.take(1), Stream.runCollect)
      expect(Chunk.size(watched)).toBe(1)
      const all = events()
      const byId = new Map<string, Array<Record<string, any>>>()
      for (const e of all) byId.set(e.auditID, [...(byId.get(e.auditID) ?? []), e])
      const requests = [...byId.values()]
      expect(requests.map((r) => r.map((e) => e.stage))).toEqual([
        ["RequestReceived", "ResponseComplete"],
        ["RequestReceived", "ResponseComplete"],
        ["RequestReceived", "ResponseStarted", "ResponseComplete"]
      ])
      const [create, get, watch] = requests.map((r) => r.at(-1)!)
      expect(create).toMatchObject({
        level: "RequestResponse",
        requestURI: "/api/v1/namespaces/default/configmaps",
        verb: "create",
        user: { username: "system:node:n1", groups: ["system:nodes", "system:authenticated"] },
        sourceIPs: ["127.0.0.1"],
        userAgent: "clustersim/node-agent",
        objectRef: { resource: "configmaps", namespace: "default", name: "c", apiVersion: "v1" },
        responseStatus: { metadata: {}, code: 201 },
        requestObject: { metadata: { name: "c" }, data: { k: "v" } },
        annotations: { "authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "" }
      })
      expect(create!.responseObject.metadata.uid).toBe(created.object.metadata.uid)
      expect(get).toMatchObject({
        requestURI: "/api/v1/namespaces/default/configmaps/nope",
        verb: "get",
        responseStatus: { metadata: {}, status: "Failure", message: 'configmaps "nope" not found', reason: "NotFound", code: 404 }
      })
      expect(watch).toMatchObject({ requestURI: "/api/v1/namespaces/default/configmaps?resourceVersion=0&watch=true", verb: "watch", responseStatus: { metadata: {}, code: 200 } })
    }).pipe(Effect.provide(ApiServer.layer()))
  )
})
