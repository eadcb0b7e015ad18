/**
 * Every kubectl on the machine with its default validation (no `--validate=false`): it downloads the OpenAPI
 * documents (v2 in protobuf on 1.27/1.28, v3 first on later builds), finds `fieldValidation` among the PATCH
 * parameters and lets the server check fields (`fieldValidation=Strict`); an unknown field is then the server's
 * strict decoding error, as against a real cluster. `kubectl explain` reads the same documents.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, findKubectls, run, startServer } from "./support/clients.js"

const kubectls = findKubectls()
let server: Awaited<ReturnType<typeof startServer>>
const dir = mkdtempSync(join(tmpdir(), "clustersim-openapi-"))

beforeAll(async () => {
  server = await startServer()
})

afterAll(async () => server?.close())

/** A manifest written to a file of its own; the path kubectl's messages name. */
const manifest = (name: string, text: string): string => {
  const file = join(dir, name)
  writeFileSync(file, text)
  return file
}

describe("kubectl with default validation", () => {
  it("is installed (the suite fails without one)", () => {
    expect(kubectls.length).toBeGreaterThan(0)
  })

  describe.concurrent.each(kubectls)("kubectl $version", ({ path, version }) => {
    const kubectl = (...args: ReadonlyArray<string>) => run(path, ["--server", server.url, ...args])
    const suffix = version.replace(".", "-")

    it("create -f: the server validates (fieldValidation=Strict), the object is created", async () => {
      const file = manifest(`pod-${suffix}.yaml`, `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p-${suffix}\nspec:\n  containers:\n  - name: c\n    image: nginx:1.25\n`)
      const out = await kubectl("create", "-f", file, "-v=6")
      expect(out.code).toBe(0)
      expect(out.stdout).toBe(`pod/p-${suffix} created\n`)
      expect(out.stderr).toMatch(/POST.*\/api\/v1\/namespaces\/default\/pods\?fieldManager=kubectl-create&fieldValidation=Strict/)
      expect(out.stderr).toMatch(/openapi\/v[23]/)
    })

    it("apply -f creates, then configures", async () => {
      const name = `cm-${suffix}`
      const first = manifest(`${name}-1.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n`)
      const created = await kubectl("apply", "-f", first)
      expect([created.code, created.stdout, created.stderr]).toEqual([0, `configmap/${name} created\n`, ""])
      const second = manifest(`${name}-2.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "2"\n  b: "3"\n`)
      const configured = await kubectl("apply", "-f", second)
      expect([configured.code, configured.stdout, configured.stderr]).toEqual([0, `configmap/${name} configured\n`, ""])
      const stored = await call(server.url, "GET", `/api/v1/namespaces/default/configmaps/${name}`)
      expect(stored.data).toEqual({ a: "2", b: "3" })
    })

    it("apply -f again on a Deployment: a strategic merge patch by the documents' merge keys, both containers kept", async () => {
      const name = `d-${suffix}`
      const deployment = (image: string) =>
        `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: ${name}}\n  template:\n    metadata:\n      labels: {app: ${name}}\n    spec:\n      containers:\n      - name: web\n        image: ${image}\n        ports:\n        - containerPort: 80\n      - name: side\n        image: busybox:1.36\n`
      const created = await kubectl("apply", "-f", manifest(`${name}-1.yaml`, deployment("nginx:1.25")))
      expect([created.code, created.stdout]).toEqual([0, `deployment.apps/${name} created\n`])
      const configured = await kubectl("apply", "-f", manifest(`${name}-2.yaml`, deployment("nginx:1.26")), "-v=8")
      expect([configured.code, configured.stdout]).toEqual([0, `deployment.apps/${name} configured\n`])
      expect(configured.stderr).toContain("application/strategic-merge-patch+json")
      const stored = await call(server.url, "GET", `/apis/apps/v1/namespaces/default/deployments/${name}`)
      expect(stored.spec.template.spec.containers.map((c: any) => `${c.name}=${c.image}`)).toEqual(["web=nginx:1.26", "side=busybox:1.36"])
    })

    it("an unknown field is the server's strict decoding error, at the top and nested", async () => {
      const top = manifest(`bad-cm-${suffix}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad-${suffix}\ndata:\n  a: b\nbogus: 1\n`)
      const outTop = await kubectl("create", "-f", top)
      expect(outTop.code).toBe(1)
      expect(outTop.stderr).toBe(
        `Error from server (BadRequest): error when creating "${top}": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"\n`
      )
      const nested = manifest(
        `bad-lease-${suffix}.yaml`,
        `apiVersion: coordination.platform/v1\nkind: Lease\nmetadata:\n  name: bad-${suffix}\nspec:\n  holderIdentity: me\n  holderName: x\n  leaseDurationSeconds: 15\n`
      )
      const outNested = await kubectl("apply", "-f", nested)
      expect(outNested.code).toBe(1)
      expect(outNested.stderr).toBe(
        `Error from server (BadRequest): error when creating "${nested}": Lease in version "v1" cannot be handled as a Lease: strict decoding error: unknown field "spec.holderName"\n`
      )
      const deep = manifest(
        `bad-pod-${suffix}.yaml`,
        `apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad-${suffix}\nspec:\n  containers:\n  - name: c\n    image: nginx\n    imagePullPolice: Always\n`
      )
      const outDeep = await kubectl("create", "-f", deep)
      expect(outDeep.code).toBe(1)
      expect(outDeep.stderr).toBe(
        `Error from server (BadRequest): error when creating "${deep}": Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].imagePullPolice"\n`
      )
      expect(await call(server.url, "GET", "/api/v1/namespaces/default/configmaps").then((l) => l.items.map((i: any) => i.metadata.name))).not.toContain(`bad-${suffix}`)
    })

    it("a List file is validated client-side against the v2 document (kubectl never asks the server for List), as upstream", async () => {
      const item = (extra: string) =>
        `- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: lp-${extra}${suffix}\n  spec:\n    containers:\n    - name: c\n      image: nginx\n${extra ? "      bogusField: 1\n" : ""}      ports:\n      - containerPort: 80\n`
      // a ClusterRole too: the RBAC kinds' documents carry their fields (rules), as upstream's
      const role = `- apiVersion: rbac.authorization.platform/v1\n  kind: ClusterRole\n  metadata:\n    name: lr-${suffix}\n  rules:\n  - apiGroups: [""]\n    resources: [pods]\n    verbs: [get]\n`
      const good = manifest(`list-${suffix}.yaml`, `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: lc-${suffix}\n  data: {a: b}\n${item("")}${role}`)
      const created = await kubectl("create", "-f", good)
      expect([created.code, created.stdout, created.stderr]).toEqual([0, `configmap/lc-${suffix} created\npod/lp-${suffix} created\nclusterrole.rbac.authorization.platform/lr-${suffix} created\n`, ""])
      const bad = manifest(`list-bad-${suffix}.yaml`, `apiVersion: v1\nkind: List\nitems:\n${item("x")}`)
      const refused = await kubectl("create", "-f", bad)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toBe(
        `error: error validating "${bad}": error validating data: ValidationError(Pod.spec.containers[0]): unknown field "bogusField" in io.k8s.api.core.v1.Container; if you choose to ignore these errors, turn validation off with --validate=false\n`
      )
    })

    it("explain pod.spec.containers: the list's item type and its fields, nested types by name", async () => {
      const out = await kubectl("explain", "pod.spec.containers")
      expect(out.code).toBe(0)
      expect(out.stdout).toMatch(/^KIND:\s+Pod\nVERSION:\s+v1\n\nFIELD: containers <\[\]Container>\n/)
      for (const field of ["env\t<[]EnvVar>", "image\t<string>", "name\t<string>", "ports\t<[]ContainerPort>", "resources\t<ResourceRequirements>"]) expect(out.stdout).toContain(`\n  ${field}\n`)
      const ports = await kubectl("explain", "pod.spec.containers.ports", "--recursive")
      expect(ports.stdout).toMatch(/FIELDS:\n {2}containerPort\t<integer>.*\n {2}hostIP\t<string>\n {2}hostPort\t<integer>\n {2}name\t<string>\n {2}protocol\t<string>/)
    })

    it("explain: a nested field and a whole kind --recursive, from the served documents", async () => {
      const spec = await kubectl("explain", "leases.spec")
      expect(spec.code).toBe(0)
      expect(spec.stdout).toMatch(/^GROUP:\s+coordination\.platform\nKIND:\s+Lease\nVERSION:\s+v1\n\nFIELD: spec <LeaseSpec>\n/)
      expect(spec.stdout).toMatch(/\n {2}leaseDurationSeconds\t<integer>\n/)
      const series = await kubectl("explain", "events.series", "--api-version=events.platform/v1")
      expect(series.code).toBe(0)
      expect(series.stdout).toMatch(/FIELD: series <EventSeries>\n+DESCRIPTION:\n {4}Data for a series of repeated events; unset for a single event\.\n/)
      expect(series.stdout).toMatch(/\n {2}count\t<integer>\n {4}Number of occurrences in the series up to the last heartbeat\.\n/)
      const recursive = await kubectl("explain", "configmaps", "--recursive")
      expect(recursive.code).toBe(0)
      expect(recursive.stdout).toMatch(/FIELDS:\n {2}apiVersion\t<string>\n {2}binaryData\t<map\[string\]string>\n {2}data\t<map\[string\]string>\n {2}immutable\t<boolean>\n/)
      expect(recursive.stdout).toMatch(/\n {4}ownerReferences\t<\[\]OwnerReference>\n {6}apiVersion\t<string>\n/)
    })
  })
})
