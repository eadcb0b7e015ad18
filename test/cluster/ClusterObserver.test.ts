/** The observer's change reports for the lifecycle controller: in write order, and only when asked for. */
import { describe, expect, it } from "@effect/vitest"
import { Leases, Nodes } from "../../src/api/Resources.js"
import { objectKey, Store } from "../../simulator/apiserver/Store.js"
import { ClusterObserver } from "../../simulator/cluster/ClusterObserver.js"
import { nodeLeaseNamespace as leaseNamespace } from "../../src/api/WellKnown.js"

const writeSome = (store: Store) => {
  store.put(Nodes, "n1", { metadata: { name: "n1" } }, 0)
  store.put(Leases, objectKey(leaseNamespace, "n1"), { metadata: { name: "n1", namespace: leaseNamespace }, spec: { renewTime: "a" } }, 0)
  store.put(Nodes, "n2", { metadata: { name: "n2" } }, 0)
  store.put(Leases, objectKey(leaseNamespace, "n1"), { metadata: { name: "n1", namespace: leaseNamespace }, spec: { renewTime: "b" } }, 0)
  store.remove(Nodes, "n1", 0)
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
    expect([...observer.changedLeases()].map((l) => (l.spec as { renewTime: string }).renewTime)).toEqual(["a", "b"])
    expect([...observer.changedNodes()]).toEqual([])
    expect([...observer.changedLeases()]).toEqual([])
    expect([...observer.nodes.keys()]).toEqual(["n2"])
  })

  it("keeps no reports when nobody will ask for them (no lifecycle controller), still the node cache", () => {
    const store = new Store()
    const observer = new ClusterObserver(0, false)
    observer.attach(store)
    writeSome(store)
    expect([...observer.changedNodes()]).toEqual([])
    expect([...observer.changedLeases()]).toEqual([])
    expect([...observer.nodes.keys()]).toEqual(["n2"])
  })
})
