/** The observer's change reports for the lifecycle controller: in write order, and only when asked for. */
import { describe, expect, it } from "@effect/vitest"
import { Leases, Nodes } from "../../src/api/Resources.js"
import { objectKey, Store } from "../../simulator/apiserver/Store.js"
import { ClusterObserver } from "../../simulator/cluster/ClusterObserver.js"
import { renewValueOf } from "../../simulator/controllers/nodelifecycle/RenewKey.js"
import { nodeLeaseNamespace as leaseNamespace } from "../../src/api/WellKnown.js"

const writeSome = (store: Store) => {
  store.put(Nodes, "n1", { metadata: { name: "n1" } }, 0)
  store.put(Leases, objectKey(leaseNamespace, "n1"), { metadata: { name: "n1", namespace: leaseNamespace }, spec: { renewTime: "a" } }, 0)
  store.put(Nodes, "n2", { metadata: { name: "n2" } }, 0)
  store.put(Leases, objectKey(leaseNamespace, "n1"), { metadata: { name: "n1", namespace: leaseNamespace }, spec: { renewTime: "b" } }, 0)
  store.remove(Nodes, "n1", 0)
}

/** The lease writes the observer kept since the last call, as (lease name, renewTime). */
const leaseWrites = (observer: ClusterObserver) => {
  const source = observer.nodeSource()
  const writes: Array<readonly [string, unknown]> = []
  source.leaseWrites.drain((ordinal, key, odd) => writes.push([source.ordinals.nameOf(ordinal), renewValueOf(key, odd)]))
  return writes
}

describe("ClusterObserver change reports", () => {
  it("reports node writes and deletions and lease writes in write order, each once", () => {
    const store = new Store()
    const observer = new ClusterObserver(0)
    observer.attach(store)
    writeSome(store)
    expect([...observer.changedNodes()]).toEqual([
      { name: "n1", deleted: false },
      { name: "n2", deleted: false },
      { name: "n1", deleted: true }
    ])
    expect(leaseWrites(observer)).toEqual([
      ["n1", "a"],
      ["n1", "b"]
    ])
    expect([...observer.changedNodes()]).toEqual([])
    expect(leaseWrites(observer)).toEqual([])
    expect([...observer.nodes.keys()]).toEqual(["n2"])
  })

  it("reports a lease deleted and created again under its node, without the writes before its deletion", () => {
    const store = new Store()
    const observer = new ClusterObserver(0)
    observer.attach(store)
    const lease = (name: string, renewTime: unknown) => ({ metadata: { name, namespace: leaseNamespace }, spec: { renewTime } })
    store.put(Leases, objectKey(leaseNamespace, "n1"), lease("n1", "a"), 0)
    store.put(Leases, objectKey(leaseNamespace, "n2"), lease("n2", "b"), 0)
    store.put(Leases, objectKey(leaseNamespace, "n1"), lease("n1", 7), 0)
    store.remove(Leases, objectKey(leaseNamespace, "n1"), 0)
    store.put(Leases, objectKey("elsewhere", "n3"), { metadata: { name: "n3", namespace: "elsewhere" }, spec: {} }, 0)
    store.put(Leases, objectKey(leaseNamespace, "n1"), lease("n1", "c"), 0)
    store.put(Leases, objectKey(leaseNamespace, "n2"), lease("n2", null), 0)
    expect(leaseWrites(observer)).toEqual([
      ["n2", "b"],
      ["n1", "c"],
      ["n2", null]
    ])
  })

  it("reports the writes of leases stored before it was attached", () => {
    const store = new Store()
    const lease = (name: string, renewTime: string) => ({ metadata: { name, namespace: leaseNamespace }, spec: { renewTime } })
    store.put(Leases, objectKey(leaseNamespace, "n1"), lease("n1", "a"), 0)
    store.put(Leases, objectKey(leaseNamespace, "n2"), lease("n2", "b"), 0)
    const observer = new ClusterObserver(0)
    observer.attach(store)
    store.put(Leases, objectKey(leaseNamespace, "n2"), lease("n2", "c"), 0)
    store.put(Leases, objectKey(leaseNamespace, "n1"), lease("n1", "d"), 0)
    expect(leaseWrites(observer)).toEqual([
      ["n2", "c"],
      ["n1", "d"]
    ])
  })

  it("keeps no reports when nobody will ask for them (no lifecycle controller), still the node cache", () => {
    const store = new Store()
    const observer = new ClusterObserver(0, false)
    observer.attach(store)
    writeSome(store)
    expect([...observer.changedNodes()]).toEqual([])
    expect(leaseWrites(observer)).toEqual([])
    expect([...observer.nodes.keys()]).toEqual(["n2"])
  })
})
