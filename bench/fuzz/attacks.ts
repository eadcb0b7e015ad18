/**
 * Hostile request shapes from the second hardening round (issue 36): each once took the server down, froze
 * its event loop, slipped past authorization or stored an object that broke later requests. The fuzz run
 * mixes them into its stream (requests.ts) with varied sizes, so a regression shows up as a hang, a dropped
 * connection or a 5xx. Pure: the same random stream gives the same requests.
 */
import type { SeededRandomService } from "../../simulator/kernel/SeededRandom.js"

export interface AttackRequest {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly body?: string
}

type Pick = <A>(items: ReadonlyArray<A>) => A

const range = (n: number) => Array.from({ length: n }, (_, i) => i)

/** Some of a path's letters (not its query) percent-encoded: lower or upper case hex, sometimes twice, sometimes malformed. */
export const encodePath = (path: string, rng: SeededRandomService): string => {
  const [route, query] = path.split("?")
  const encoded = route!.replace(/[a-z]/g, (c) => {
    const roll = rng.next()
    if (roll > 0.15) return c
    const hex = c.charCodeAt(0).toString(16)
    return roll < 0.05 ? `%${hex.toUpperCase()}` : roll < 0.1 ? `%${hex}` : roll < 0.13 ? `%25${hex}` : "%ZZ"
  })
  return query === undefined ? encoded : `${encoded}?${query}`
}

const json = (value: unknown) => JSON.stringify(value)

/** JSON patch: an array copied into itself until the document is huge (upstream: accumulated copy limit). */
const copyBomb = (copies: number, length: number) =>
  json([
    { op: "add", path: "/b", value: range(length) },
    ...range(copies).map((i) => ({ op: "copy", from: "/b", path: `/b/c${i}` })),
    { op: "remove", path: "/b" }
  ])

/** JSON patch: many operations moving list elements (quadratic in a naive list). */
const moves = (n: number) =>
  json([
    { op: "add", path: "/metadata/annotations", value: {} },
    { op: "add", path: "/x", value: range(n) },
    ...range(n).map(() => ({ op: "move", from: "/x/0", path: "/x/-" }))
  ])

const finalizers = (n: number) => range(n).map((i) => `example.com/f${i}`)

/** Strategic merge: a long list reordered by merge key (once cubic). */
const reorder = (pick: Pick, n: number) =>
  pick([
    () => json({ metadata: { finalizers: finalizers(n).reverse() } }),
    () => json({ metadata: { "$setElementOrder/finalizers": finalizers(n).reverse(), finalizers: finalizers(n) } }),
    () => json({ spec: { "$setElementOrder/containers": range(n).reverse().map((i) => ({ name: `c${i}` })), containers: range(n).map((i) => ({ name: `c${i}`, image: "i" })) } })
  ])()

/** YAML: one anchor aliased many times (expands far past the body's size). */
const aliasBomb = (aliases: number, size: number) =>
  [
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata:",
    "  name: fuzz-apply",
    "data:",
    `  a0: &big "${"x".repeat(size)}"`,
    ...range(aliases).map((i) => `  a${i + 1}: *big`)
  ].join("\n")

/** Metadata that create refuses, sent by update or patch. */
const badMetadata = (pick: Pick) =>
  pick<Record<string, unknown>>([
    { labels: { $bad: "x" } },
    { labels: { a: "v".repeat(100) } },
    { annotations: { a: "v".repeat(400_000) } },
    { finalizers: ["not a valid finalizer!!"] },
    { ownerReferences: [null] },
    { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "o" }] }
  ])

/** The next attack from the generator's stream. */
export const nextAttack = (rng: SeededRandomService): AttackRequest => {
  const pick: Pick = (items) => items[rng.intBetween(0, items.length)]!
  const name = `fuzz-${rng.intBetween(0, 20)}`
  const configMap = `/api/v1/namespaces/fuzz/configmaps/${name}`
  const patch = (type: string, body: string): AttackRequest => ({
    method: "PATCH",
    path: pick([configMap, `/api/v1/namespaces/fuzz/pods/${name}`, `/apis/apps/v1/namespaces/fuzz/deployments/${name}`]),
    headers: { "content-type": type },
    body
  })
  const attacks: ReadonlyArray<() => AttackRequest> = [
    () => patch("application/json-patch+json", copyBomb(pick([2, 14, 17, 30]), pick([10, 1000, 5000]))),
    () => patch("application/json-patch+json", moves(pick([100, 3000, 10_001]))),
    () => patch("application/strategic-merge-patch+json", reorder(pick, pick([10, 1000, 3000, 10_000]))),
    () => patch("application/strategic-merge-patch+json", json({ $patch: "delete" })),
    () => ({
      method: "PATCH",
      path: `/api/v1/namespaces/fuzz/configmaps/fuzz-apply?fieldManager=fuzz`,
      headers: { "content-type": "application/apply-patch+yaml" },
      body: aliasBomb(pick([3, 99, 2000]), pick([10, 30_000]))
    }),
    () => ({
      method: "GET",
      path: encodePath(pick(["/api/v1/namespaces/other/configmaps", "/api/v1/watch/configmaps?timeoutSeconds=1", `/api/v1/namespaces/fuzz/configmaps/${name}`, "/apis/apps/v1/namespaces/fuzz/deployments"]), rng),
      headers: {}
    }),
    () => ({
      method: "GET",
      path: "/api/v1/namespaces/fuzz/configmaps",
      headers: pick<Record<string, string>>([
        { "impersonate-user": "" },
        { "impersonate-user": "bob", "impersonate-uid": "1234" },
        { "impersonate-user": "bob", "impersonate-extra-scopes": "view" },
        { "impersonate-group": "system:masters" }
      ])
    }),
    () => ({
      method: pick(["POST", "PUT"]),
      path: pick(["/api/v1/namespaces/fuzz/configmaps", configMap]),
      headers: { "content-type": "application/json" },
      body: json({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: pick([{ big: "x".repeat(1_100_000) }, { "bad key!": "v" }]) })
    }),
    () => ({
      method: "PUT",
      path: configMap,
      headers: { "content-type": "application/json" },
      body: json({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...badMetadata(pick) }, data: { k: "v" } })
    }),
    () => patch(pick(["application/merge-patch+json", "application/strategic-merge-patch+json"]), json({ metadata: badMetadata(pick) })),
    () => ({
      method: "DELETE",
      path: `${configMap}?propagationPolicy=${pick(["Orphan", "Foreground", "Background"])}`,
      headers: {}
    }),
    () => ({
      method: "POST",
      path: `/api/v1/namespaces/fuzz/pods/${name}/binding`,
      headers: { "content-type": "application/json" },
      body: json({ apiVersion: "v1", kind: "Binding", metadata: { name, namespace: "other" }, target: { kind: "Node", name: "n1" } })
    })
  ]
  return pick(attacks)()
}
