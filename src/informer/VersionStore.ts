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

export const makeVersionStore = (): VersionStore => {
  let versions = new Map<string, string>()
  const put = (object: KObject) => void versions.set(objectKey(object), object.metadata.resourceVersion ?? "")
  return {
    size: () => versions.size,
    versionOf: (key) => versions.get(key),
    add: put,
    update: put,
    delete: (object) => void versions.delete(objectKey(object)),
    replace: (items) => {
      // the store becomes the list: what it no longer has is gone
      const listed = new Map<string, string>()
      for (const object of items) listed.set(objectKey(object), object.metadata.resourceVersion ?? "")
      versions = listed
    }
  }
}
