/**
 * Reading ahead in a shard's due queue (issue 39): at 65,000 nodes each agent's state and its lease's objects are
 * touched once per 10 s in a heap of gigabytes, so nearly every first read of them is a cache miss, and misses one
 * after the other, each behind thousands of instructions of the event before, each cost the whole memory latency
 * (docs/benchmarks.md "Where a lease renewal's CPU goes"). Here the next four events are read ahead, a few loads side
 * by side that the processor overlaps, each event one hop further along the pointers its event follows: when it
 * runs, what it reads first is in the cache.
 *
 * Reads only: what the loads find is summed into `readAhead` so that the compiler keeps them, and nothing decides
 * on it. A wrong guess (an item pushed late comes first) costs a few loads.
 */
import type { DueQueue } from "../kernel/DueQueue.js"
import type { AgentState } from "./AgentState.js"
import { Kind, type Due, type PodStart } from "./ShardContext.js"

/** What the loads found, summed: never read for anything (an observable store keeps the loads). */
export let readAhead = 0

/**
 * Reads ahead of the event `popDue` returned last, one hop deeper for each nearer event (a hop's object is in the cache
 * when the next hop reads its pointer): the state of the fourth event's agent; for a renewal third in line, what its
 * agent's state points to (the lease's metadata, the renewal's options, which are its note of the lease's store entry,
 * `EntryNote.ts`); for one second in line, that entry; for the next, the stored lease and the store's record of its
 * last renewal (`Store.renewedVersion`), which the write reads first.
 */
export const prefetchAhead = (due: DueQueue<Due>): void => {
  const first = due.ahead(0)
  if (first !== undefined && due.aheadTag === Kind.Lease) readStoredVersion(first as AgentState)
  const second = due.ahead(1)
  if (second !== undefined && due.aheadTag === Kind.Lease) readEntry(second as AgentState)
  const third = due.ahead(2)
  if (third !== undefined && due.aheadTag === Kind.Lease) readLeaseObjects(third as AgentState)
  const fourth = due.ahead(3)
  if (fourth !== undefined) readState(agentOf(fourth, due.aheadTag))
}

const agentOf = (due: Due, kind: Kind): AgentState => (kind <= Kind.PodsBound ? (due as AgentState) : (due as PodStart).agent)

/**
 * One field of each 64-byte line of the agent's state (`makeAgentState`'s order, 8-byte fields after a 24-byte
 * header: fields 4, 11, 17, 24 and 29 are at most 56 bytes apart), the first through its map check.
 */
const readState = (a: AgentState): void => {
  readAhead =
    (readAhead +
      (a.checked === undefined ? 1 : 0) +
      (a.requests === undefined ? 1 : 0) +
      (a.renewalHolder === undefined ? 1 : 0) +
      a.leaseTries +
      (a.podWorkers === undefined ? 1 : 0)) &
    0xffff
}

/** The objects a renewal reads through its agent's state: the lease's metadata and the renewal's options. */
const readLeaseObjects = (a: AgentState): void => {
  const meta = a.leaseMeta
  const options = a.renewalOptions
  readAhead =
    (readAhead +
      (meta !== undefined && meta.ownerReferences === undefined ? 1 : 0) +
      (meta !== undefined && meta.managedFields === undefined ? 1 : 0) +
      (options !== undefined && options.namespace === undefined ? 1 : 0)) &
    0xffff
}

/** The lease's store entry, as the renewal's note last found it. */
const readEntry = (a: AgentState): void => {
  const entry = a.renewalOptions?.noted
  if (entry !== undefined) readAhead = (readAhead + (entry.obj === undefined ? 1 : 0)) & 0xffff
}

/** The stored lease and the store's record of its last renewal (`Store.renewedVersion`): what the write reads first. */
const readStoredVersion = (a: AgentState): void => {
  const note = a.renewalOptions
  const entry = note?.noted
  if (entry === undefined) return
  const renewed = note!.notedIn!.renewedVersion(entry)
  readAhead = (readAhead + (entry.obj.spec === undefined ? 1 : 0) + (renewed === undefined ? 0 : renewed.second + (renewed.ownFields === undefined ? 1 : 0))) & 0xffff
}
