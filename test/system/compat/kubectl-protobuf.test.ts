/**
 * kubectl ≥ 1.32 sends typed creates as protobuf (`Content-Type: application/vnd.kubernetes.protobuf`, Accept
 * protobuf then JSON) and decodes the protobuf answer: the envelope must read and write what Go's generated
 * code does. Runs every such kubectl found on the machine against the simulated server on a real socket.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ApiServer } from "../../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../../simulator/apiserver/HttpServer.js"
import { findKubectls, run } from "./support/clients.js"

/** Every kubectl on the machine (the suite's one discovery) from 1.32 on, the builds that create in protobuf. */
const kubectls = findKubectls().filter((k) => Number(k.version.split(".")[0]) > 1 || Number(k.version.split(".")[1]) >= 32)

const kubectl = (path: string, server: string, args: ReadonlyArray<string>) =>
  Effect.promise(() => run(path, ["--server", server, ...args], 20_000))

const server = Effect.map(serveHttp({ host: "127.0.0.1", port: 0, admin: false }), (s) => s.url).pipe(Effect.provide(ApiServer.layer({})))

/** kubectl prints objects without `metadata.managedFields` unless asked (`--show-managed-fields`). */
const withoutManagedFields = (obj: { metadata: Record<string, unknown> }) => {
  const { managedFields: _m, ...metadata } = obj.metadata
  return { ...obj, metadata }
}

describe("kubectl typed creates as protobuf", () => {
  it("finds a kubectl 1.32 or later on this machine", () => {
    expect(kubectls.map((k) => k.version)).not.toEqual([])
  })

  describe.each(kubectls)("kubectl $version", ({ path }) => {
    it.scopedLive("creates a namespace, sending and reading protobuf", () =>
      Effect.gen(function* () {
        const url = yield* server
        const created = yield* kubectl(path, url, ["create", "namespace", "team-a", "-v=8"])
        expect(created.stdout).toBe("namespace/team-a created\n")
        // The request and the answer really were protobuf.
        expect(created.stderr).toContain("Content-Type: application/vnd.kubernetes.protobuf")
        expect(created.stderr).toMatch(/201 Created[\s\S]*Content-Type: application\/vnd\.kubernetes\.protobuf/)
        const got = yield* kubectl(path, url, ["get", "namespace", "team-a", "-o", "jsonpath={.metadata.name} {.status.phase}"])
        expect(got.stdout).toBe("team-a Active")
        const again = yield* kubectl(path, url, ["create", "namespace", "team-a"])
        expect(again.code).toBe(1)
        expect(again.stderr).toBe('Error from server (AlreadyExists): namespaces "team-a" already exists\n')
      }))

    it.scopedLive("creates a config map and prints the decoded answer as the server stores it", () =>
      Effect.gen(function* () {
        const url = yield* server
        const created = yield* kubectl(path, url, ["create", "configmap", "web", "--from-literal=a=b", "--from-literal=empty=", "-o", "json"])
        expect(created.code).toBe(0)
        const printed = JSON.parse(created.stdout)
        const stored = yield* Effect.promise(() => fetch(`${url}/api/v1/namespaces/default/configmaps/web`).then((r) => r.json()))
        expect(printed).toEqual(withoutManagedFields(stored))
        expect(printed.data).toEqual({ a: "b", empty: "" })
        const missing = yield* kubectl(path, url, ["create", "configmap", "x", "-n", "nowhere", "--from-literal=a=b"])
        expect(missing.code).toBe(1)
        expect(missing.stderr).toBe('error: failed to create configmap: namespaces "nowhere" not found\n')
      }))

    it.scopedLive("creates a deployment whose pod template round-trips through Go's types", () =>
      Effect.gen(function* () {
        const url = yield* server
        const created = yield* kubectl(path, url, ["create", "deployment", "web", "--image=nginx:1.25", "--replicas=0", "--port=8080", "-o", "json"])
        expect(created.code).toBe(0)
        const printed = JSON.parse(created.stdout)
        expect(printed.spec.replicas).toBe(0)
        // The template as the server defaults it (SetDefaults_PodSpec), decoded from protobuf by Go's types.
        expect(printed.spec.template.spec).toEqual({
          containers: [
            {
              name: "nginx",
              image: "nginx:1.25",
              ports: [{ containerPort: 8080, protocol: "TCP" }],
              resources: {},
              terminationMessagePath: "/dev/termination-log",
              terminationMessagePolicy: "File",
              imagePullPolicy: "IfNotPresent"
            }
          ],
          restartPolicy: "Always",
          terminationGracePeriodSeconds: 30,
          dnsPolicy: "ClusterFirst",
          securityContext: {},
          schedulerName: "default-scheduler"
        })
        const stored = yield* Effect.promise(() => fetch(`${url}/apis/apps/v1/namespaces/default/deployments/web`).then((r) => r.json()))
        expect(printed).toEqual(withoutManagedFields(stored))
      }))
  })
})
