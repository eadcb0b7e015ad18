/**
 * A reflector store that keeps each object's key and resourceVersion, not the object: what the load generator's
 * `informers` action needs. Its reflectors are client-go's (list, watch, relist, the same requests to the server);
 * no handler reads their objects, and holding them is a cost of packing N clients into one process, not one the
 * server causes: at 150 informers over 3,000 configmaps, 2.1 MB of objects per informer (from a 1.2 MB list),
 * which the generator's scavenges promoted and its full collections walked (docs/benchmarks.md "Load generator").
 * `Informer.ts` keeps the objects, for components that read them.
 */
import type { KObject } from "../api/Object.js"
import { objectKey } from "./Cache.js"
import type { ReflectorStore } from "./Reflector.js"

export interface VersionStore extends ReflectorStore {
  /** Objects held. */
  readonly size: () => number
  /** The resourceVersion held for a `namespace/name` key (`name` when cluster-scoped). */
  readonly versionOf: (key: string) => string | undefined
}

/** An object's resourceVersion, and the relist that last listed it. */
interface Held {
  rv: string
  listed: number
}

export const makeVersionStore = (): VersionStore => {
  const versions = new Map<string, Held>()
  let relist = 0
  const put = (object: KObject) => {
    const rv = object.metadata.resourceVersion ?? ""
    const key = objectKey(object)
    const held = versions.get(key)
    if (held === undefined) versions.set(key, { rv, listed: relist })
    else if (held.rv !== rv) held.rv = rv
  }
  return {
    size: () => versions.size,
    versionOf: (key) => versions.get(key)?.rv,
    add: put,
    update: put,
    delete: (object) => void versions.delete(objectKey(object)),
    replace: (items) => {
      // The store becomes the list, updated in place: a relist of unchanged objects (the storm's) keeps every key,
      // version and entry it held, so it leaves nothing to promote — a new map of 3,000 fresh keys per informer and
      // relist was tens of megabytes moved to the old generation per storm wave.
      const current = ++relist
      let listed = 0
      for (const object of items) {
        const rv = object.metadata.resourceVersion ?? ""
        const key = objectKey(object)
        const held = versions.get(key)
        if (held === undefined) {
          versions.set(key, { rv, listed: current })
          listed++
          continue
        }
        if (held.listed !== current) listed++
        held.listed = current
        if (held.rv !== rv) held.rv = rv
      }
      // what the list no longer has is gone
      if (listed !== versions.size) for (const [key, held] of versions) if (held.listed !== current) versions.delete(key)
    }
  }
}
