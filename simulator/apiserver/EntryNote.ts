/**
 * A caller's note of the store entry it writes again and again — a node agent's lease, renewed every 10 s — filled at
 * a lookup and found through at the next, instead of looking up its name among 5,000 leases' (~3.5 % of the
 * control-plane hour's steady state, docs/benchmarks.md "Where a lease renewal's CPU goes"). Trusted only while it
 * names the same store, type, namespace and name and its entry is live: an entry stays under its name until it is
 * deleted, so the note finds what `Store.lookup` would. A timed store times every lookup, so it is always asked.
 */
import type { ResourceType } from "../../src/api/Resources.js"
import type { Entry, Store } from "./Store.js"

export class EntryNote {
  private notedStore: Store | undefined = undefined
  private notedResource: ResourceType | undefined = undefined
  private notedNamespace: string | undefined = undefined
  private notedName = ""
  private notedEntry: Entry | undefined = undefined

  /**
   * The entry noted last (undefined: none yet), unchecked: for a caller that reads ahead of its next write
   * (`nodeagent/AgentPrefetch.ts`), never to write through.
   */
  get noted(): Entry | undefined {
    return this.notedEntry
  }

  /** The store of the entry noted last (undefined: none yet), as `noted`. */
  get notedIn(): Store | undefined {
    return this.notedStore
  }

  /** `store.lookup(resource, namespace, name)`, through the note when it holds that entry, else noting what was found. */
  lookup(store: Store, resource: ResourceType, namespace: string | undefined, name: string): Entry | undefined {
    const noted = this.notedEntry
    if (
      noted !== undefined && store.timing === undefined && this.notedName === name && this.notedStore === store &&
      this.notedResource === resource && this.notedNamespace === namespace && store.isLive(noted)
    ) return noted
    const entry = store.lookup(resource, namespace, name)
    this.notedStore = store
    this.notedResource = resource
    this.notedNamespace = namespace
    this.notedName = name
    this.notedEntry = entry
    return entry
  }
}
