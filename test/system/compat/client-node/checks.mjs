// The official Node client (@kubernetes/client-node 2.x, Node >= 22) against a clustersim server: one check per
// run, one JSON line of findings. Usage: node checks.mjs <server-url> <check>
import * as k8s from "@kubernetes/client-node"

const [url, check] = process.argv.slice(2)
const kc = new k8s.KubeConfig()
kc.loadFromOptions({
  clusters: [{ name: "sim", server: url, skipTLSVerify: true }],
  users: [{ name: "user" }],
  contexts: [{ name: "sim", cluster: "sim", user: "user" }],
  currentContext: "sim"
})
const core = kc.makeApiClient(k8s.CoreV1Api)
const admin = (action) => fetch(`${url}/clustersim/${action}`, { method: "POST" })
const until = async (condition, what) => {
  for (let i = 0; i < 200; i++) {
    if (condition()) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`timed out waiting for ${what}`)
}
const configMap = (name, labels) => core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name, labels }, data: { k: name } } })

if (check === "leases") {
  const coordination = kc.makeApiClient(k8s.CoordinationV1Api)
  const now = new k8s.V1MicroTime()
  const created = await coordination.createNamespacedLease({
    namespace: "kube-node-lease",
    body: { metadata: { name: "n1" }, spec: { holderIdentity: "n1", leaseDurationSeconds: 40, renewTime: now } }
  })
  const replaced = await coordination.replaceNamespacedLease({
    name: "n1",
    namespace: "kube-node-lease",
    body: { ...created, spec: { ...created.spec, holderIdentity: "n2" } }
  })
  const read = await coordination.readNamespacedLease({ name: "n1", namespace: "kube-node-lease" })
  const listed = await coordination.listLeaseForAllNamespaces()
  console.log(
    JSON.stringify({
      created: [created.apiVersion, created.metadata.namespace],
      holder: read.spec.holderIdentity,
      renewTime: new Date(read.spec.renewTime).getTime() === now.getTime(),
      rvChanged: replaced.metadata.resourceVersion !== created.metadata.resourceVersion,
      listed: listed.items.map((l) => `${l.metadata.namespace}/${l.metadata.name}`)
    })
  )
} else if (check === "informer-relist") {
  // A label-selected informer keeps the resourceVersion of the last object it saw; other writes move the store on,
  // a compaction makes that version too old, and the re-watch after dropped watches gets 410 and relists.
  let lists = 0
  const seen = []
  const errors = []
  await configMap("a", { app: "x" })
  const informer = k8s.makeInformer(
    kc,
    "/api/v1/namespaces/default/configmaps",
    () => {
      lists++
      return core.listNamespacedConfigMap({ namespace: "default", labelSelector: "app=x" })
    },
    "app=x"
  )
  informer.on("add", (o) => seen.push(`add ${o.metadata.name}`))
  informer.on("delete", (o) => seen.push(`delete ${o.metadata.name}`))
  informer.on("error", (e) => errors.push(String(e)))
  await informer.start()
  await until(() => seen.includes("add a"), "add a")
  for (const name of ["o1", "o2", "o3"]) await configMap(name, { app: "other" })
  await admin("compact")
  await admin("drop-watches")
  await until(() => lists === 2, "the relist")
  await core.deleteNamespacedConfigMap({ name: "a", namespace: "default" })
  await configMap("c", { app: "x" })
  await until(() => seen.includes("add c") && seen.includes("delete a"), "add c, delete a")
  await informer.stop()
  console.log(JSON.stringify({ lists, seen, errors, cached: informer.list().map((o) => o.metadata.name) }))
} else if (check === "apply") {
  // Server-side apply as the client offers it: the patch call with the apply Content-Type set by a header option.
  const apply = (data, fieldManager, force) =>
    core.patchNamespacedConfigMap(
      { name: "cm", namespace: "default", fieldManager, force, body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "default" }, data } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.ServerSideApply)
    )
  const created = await apply({ a: "1" }, "tool-a")
  const result = { created: created.metadata.managedFields }
  try {
    await apply({ a: "2" }, "tool-b")
  } catch (e) {
    const body = JSON.parse(e.body)
    result.conflict = [e.code, body.reason, body.message, body.details]
  }
  const forced = await apply({ a: "2" }, "tool-b", true)
  result.forced = [forced.data, forced.metadata.managedFields.map((e) => [e.manager, e.fieldsV1])]
  console.log(JSON.stringify(result))
} else if (check === "strategic-patch") {
  await core.createNamespacedPod({
    namespace: "default",
    body: { metadata: { name: "p" }, spec: { containers: [{ name: "a", image: "a:1" }, { name: "b", image: "b:1" }] } }
  })
  const patched = await core.patchNamespacedPod(
    { name: "p", namespace: "default", fieldManager: "editor", body: { spec: { containers: [{ name: "b", image: "b:2" }] } } },
    k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.StrategicMergePatch)
  )
  console.log(
    JSON.stringify({
      containers: patched.spec.containers.map((c) => [c.name, c.image]),
      managers: patched.metadata.managedFields.map((e) => [e.manager, e.operation]).sort()
    })
  )
} else {
  throw new Error(`unknown check ${check}`)
}
