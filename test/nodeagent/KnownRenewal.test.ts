/**
 * A renewal spec built by its agent (simulator/nodeagent/RenewalSpec.ts `renewalSpecOf`) is recognised by construction
 * (simulator/apiserver/KnownRenewal.ts): the server writes it without comparing it with the stored spec, and stores,
 * answers, replays and lists exactly what the general update path does with the same bodies sent as copies.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { extendable } from "../../src/api/internal/V8Shapes.js"
import type { KObject } from "../../src/api/Object.js"
import type { WriteOptions, WriteResult } from "../../src/api/Requests.js"
import { Leases } from "../../src/api/Resources.js"
import { ApiServerImpl, defaultConfig } from "../../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { isKnownRenewal } from "../../simulator/apiserver/KnownRenewal.js"
import { everything } from "../../simulator/apiserver/Store.js"
import { microTime } from "../../simulator/apiserver/SystemMeta.js"
import { renewalSpecOf, type RenewalMemo } from "../../simulator/nodeagent/RenewalSpec.js"
import { storedVersions } from "../support/storedVersions.js"

const namespace = "platform-node-lease"
const start = Date.UTC(2026, 0, 1)

/** `agent`: bodies as an agent builds them (the stored metadata itself, `renewalSpecOf`); else copies (the general path). */
const cluster = (agent: boolean) => {
  const server = new ApiServerImpl(defaultConfig, start)
  const client = inProcessClient(server)
  const { seen, previousOf } = storedVersions(server.store)
  const answers: string[] = []
  const memo: RenewalMemo = { renewalBase: undefined, renewalHolder: undefined, renewalDuration: undefined, renewalTime: "" }
  let lease: KObject | undefined
  let known = 0
  const take = (answer: unknown): void => {
    const written = answer as Either.Either<WriteResult, unknown>
    if (Either.isLeft(written)) return void answers.push(`error ${JSON.stringify(written.left)}`)
    answers.push(JSON.stringify(written.right))
    lease = written.right.object
  }
  const stored = () => server.store.get(Leases, `${namespace}/a`)!
  return {
    server,
    seen,
    previousOf,
    answers,
    known: () => known,
    create: (now: number) =>
      take(client.at!(now)!.create(Leases, { metadata: { name: "a", namespace }, spec: { holderIdentity: "a", leaseDurationSeconds: 40, renewTime: microTime(now) } }, { namespace })),
    /** A renewal of the lease last answered; `spec`: the spec it renews (another version's, to pair it wrongly). */
    renew: (now: number, renewTime = microTime(now), spec = lease!.spec as Record<string, unknown>, opts: WriteOptions = {}) => {
      const metadata = agent ? lease!.metadata : { ...lease!.metadata }
      const body = agent ? renewalSpecOf(memo, spec, renewTime) : { ...extendable, ...spec, renewTime }
      if (agent && isKnownRenewal(body, stored().spec)) known++
      take(client.at!(now)!.update(Leases, { metadata, spec: body }, { namespace, ...opts }))
    },
    /** Another manager's write of the spec (the next renewal renews a spec the agent did not build). */
    rewrite: (now: number, spec: Record<string, unknown>) =>
      take(client.at!(now)!.update(Leases, { metadata: { ...lease!.metadata }, spec }, { namespace, fieldManager: "other" })),
    label: (now: number) => take(client.at!(now)!.patch(Leases, "a", "merge", { metadata: { labels: { at: String(now) } } }, { namespace }))
  }
}

const script = (c: ReturnType<typeof cluster>) => {
  let now = start
  c.create(now)
  let older: Record<string, unknown> | undefined
  for (let round = 0; round < 24; round++) {
    now += 10_000 + round * 3.25
    c.renew(now)
    if (round % 6 === 2) c.label(now + 1)
    // the same renewTime again: no renewal (a no-op)
    if (round % 7 === 3) c.renew(now + 2, JSON.parse(JSON.stringify((c.server.store.get(Leases, `${namespace}/a`)!.spec as { renewTime: string }).renewTime)))
    // another manager sets another holder, and the agent renews the spec it read before that
    if (round === 10) {
      older = c.server.store.get(Leases, `${namespace}/a`)!.spec as Record<string, unknown>
      c.rewrite(now + 3, { holderIdentity: "b", leaseDurationSeconds: 40, renewTime: microTime(now + 3) })
      c.renew(now + 4, microTime(now + 4), older)
    }
    // another manager's spec of other keys, then renewed as the agent renews any spec
    if (round === 15) c.rewrite(now + 5, { leaseDurationSeconds: 30, holderIdentity: "a", renewTime: microTime(now + 5) })
    if (round === 18) c.rewrite(now + 5, { holderIdentity: "a", leaseDurationSeconds: 40, renewTime: microTime(now + 5) })
  }
  return now
}

describe("KnownRenewal", () => {
  it("writes an agent's renewal as the general path writes the same bodies", () => {
    const direct = cluster(true)
    const general = cluster(false)
    const end = script(direct)
    script(general)
    expect(direct.known()).toBeGreaterThan(15)
    expect(direct.answers.length).toBeGreaterThan(30)
    expect(direct.answers).toEqual(general.answers)
    expect([...direct.seen]).toEqual([...general.seen])
    expect([...direct.previousOf]).toEqual([...general.previousOf])
    // the versions kept in the history replay and list as they were stored
    const store = direct.server.store
    store.compactBefore(end - 200_000)
    const replayed = [...store.changesAfter(Leases, store.compactedRevision)]
    expect(replayed.length).toBeGreaterThan(15)
    for (const change of replayed) {
      expect(JSON.stringify(change.object)).toBe(direct.seen.get(change.revision))
      expect(change.previous === undefined ? undefined : JSON.stringify(change.previous)).toBe(direct.previousOf.get(change.revision))
      const page = store.page({ resource: Leases, revision: change.revision, prefix: `${namespace}/`, start: `${namespace}/`, limit: undefined, matches: everything, countRemaining: false })
      expect(JSON.stringify(page.items[0])).toBe(direct.seen.get(change.revision))
    }
  })

  it("knows only the spec built last, as the renewal of the spec it was built from", () => {
    const memo: RenewalMemo = { renewalBase: undefined, renewalHolder: undefined, renewalDuration: undefined, renewalTime: "" }
    const base = { holderIdentity: "a", leaseDurationSeconds: 40, renewTime: "2026-01-01T00:00:00.000000Z" }
    const first = renewalSpecOf(memo, base, "2026-01-01T00:00:10.000000Z")
    expect(isKnownRenewal(first, base)).toBe(true)
    expect(isKnownRenewal(first, { ...base })).toBe(false)
    // built from the memo: the same object as built from the spec's own values
    const second = renewalSpecOf(memo, first, "2026-01-01T00:00:20.000000Z")
    expect(Object.entries(second)).toEqual([["holderIdentity", "a"], ["leaseDurationSeconds", 40], ["renewTime", "2026-01-01T00:00:20.000000Z"]])
    expect(isKnownRenewal(second, first)).toBe(true)
    expect(isKnownRenewal(first, base)).toBe(false)
    // the same renewTime, an undefined value, another shape: built, never known
    expect(isKnownRenewal(renewalSpecOf(memo, second, "2026-01-01T00:00:20.000000Z"), second)).toBe(false)
    const holderless = { holderIdentity: undefined, leaseDurationSeconds: 40, renewTime: "x" }
    expect(isKnownRenewal(renewalSpecOf(memo, holderless, "y"), holderless)).toBe(false)
    const other = { leaseDurationSeconds: 40, holderIdentity: "a", renewTime: "x" }
    const spread = renewalSpecOf(memo, other, "y")
    expect(Object.keys(spread)).toEqual(["leaseDurationSeconds", "holderIdentity", "renewTime"])
    expect(isKnownRenewal(spread, other)).toBe(false)
    expect(memo.renewalBase).toBeUndefined()
  })
})
