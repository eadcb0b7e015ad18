/**
 * `JSON.stringify(value).length` without building the string: the service-time model sizes every GET answer and
 * write body by it (`ServiceTime.approximateBytes`), and at 100 GETs a second the strings built only to be measured
 * were a quarter of a capacity run's steady-state CPU, and more again in garbage collection (docs/benchmarks.md
 * "With clients"). Exact for JSON-shaped values; anything with a `toJSON` is measured by stringifying it.
 */

/** Characters `JSON.stringify` escapes: quote, backslash, controls, and surrogates (a lone one becomes `\uXXXX`). */
const escaped = /["\\\u0000-\u001f\ud800-\udfff]/

/** `JSON.stringify(value).length`; 0 where `JSON.stringify` gives undefined (undefined, functions, symbols). */
export const jsonLength = (value: unknown): number => {
  switch (typeof value) {
    case "string":
      return stringLength(value)
    case "number":
      return numberLength(value)
    case "boolean":
      return value ? 4 : 5
    case "object":
      if (value === null) return 4
      if (typeof (value as { toJSON?: unknown }).toJSON === "function") return JSON.stringify(value)?.length ?? 0
      if (Array.isArray(value)) {
        let length = 2 + Math.max(0, value.length - 1)
        for (let i = 0; i < value.length; i++) length += jsonLength(value[i]) || 4 // what is left out of an object is `null` in an array
        return length
      }
      return recordLength(value as Record<string, unknown>, jsonLength)
    default:
      return 0
  }
}

/** A record's members, each measured by `member` (given the key); those measured 0 are left out, as undefined is. */
const recordLength = (record: Record<string, unknown>, member: (value: unknown, key: string) => number): number => {
  let length = 2
  let members = 0
  // for-in rather than Object.keys: no array of keys per object (the same keys, in the same order, once own)
  for (const key in record) {
    if (!Object.prototype.hasOwnProperty.call(record, key)) continue
    const measured = member(record[key], key)
    if (measured === 0) continue // undefined, a function or a symbol: the key is left out
    length += keyLength(key) + 1 + measured
    members++
  }
  return members > 0 ? length + members - 1 : length
}

const stringLength = (value: string): number => (escaped.test(value) ? JSON.stringify(value).length : value.length + 2)

/** Whole numbers by their digits, without a string per number; others as `String` writes them (`JSON.stringify` does). */
const numberLength = (value: number): number => {
  if (!Number.isFinite(value)) return 4 // null
  if (!Number.isInteger(value) || Math.abs(value) >= 1e21) return String(value).length
  let digits = value < 0 ? 2 : 1
  for (let rest = Math.abs(value); rest >= 10; rest = Math.floor(rest / 10)) digits++
  return digits
}

/**
 * Members' keys come from few shapes (an API object's field names, managedFields' `f:` paths), so their lengths are
 * remembered, up to a bound (label keys and names can be many).
 */
const keyLengths = new Map<string, number>()
const keyLength = (key: string): number => {
  let length = keyLengths.get(key)
  if (length === undefined) {
    length = stringLength(key)
    if (keyLengths.size < 10_000) keyLengths.set(key, length)
  }
  return length
}

const storedLengths = new WeakMap<object, number>()
const listLengths = new WeakMap<object, number>()

/**
 * `jsonLength` of an object the server hands out as it stores it — a GET answer is one object per stored version
 * (`TypeMeta.typedStored`), never changed (a write stores a new one) — measured once per version: GETs of random
 * pods ask for the same versions again and again, and measuring a pod with its managedFields is ~25–45 µs. Its
 * managedFields list is measured once per list: the server shares equal lists between objects (`ManagedFields.ts`
 * interns them), and they are most of a pod's length.
 */
export const storedJsonLength = (obj: object): number => {
  // a GET's typed copy: its stored version's remembered length and two members, not remembered itself — random pods
  // are read about once per version, and an entry per GET in a table of ~300,000 cost more than the sum
  // (docs/benchmarks.md "With clients")
  let length = storedLengths.get(obj)
  if (length !== undefined) return length
  const stored = typedOrigins.get(obj)
  if (stored !== undefined && !ownsTypeMeta(stored)) return typedLength(obj as Record<string, unknown>, storedJsonLength(stored))
  length = recordLength(obj as Record<string, unknown>, storedMember)
  storedLengths.set(obj, length)
  return length
}

/** A stored object with either member of its own gave its typed copy its own value: the copy is measured as it is. */
const ownsTypeMeta = (stored: object): boolean =>
  Object.prototype.hasOwnProperty.call(stored, "kind") || Object.prototype.hasOwnProperty.call(stored, "apiVersion")

/**
 * A GET answers a copy of the stored version with kind and apiVersion first (`TypeMeta.typedStored`), while a LIST's
 * items are the stored versions themselves: measuring the copy afresh measured every pod twice, ~a third of a modelled
 * GET's cost (docs/benchmarks.md "With clients"). The copy is measured as its stored version and those two members.
 */
const typedOrigins = new WeakMap<object, object>()

/** `typed` is `{ kind, apiVersion, ...stored }`, made once per stored version: measured from `stored`'s length. */
export const rememberTypedCopy = (typed: object, stored: object): void => {
  typedOrigins.set(typed, stored)
}

/** `typed`'s length from `base`, its stored version's (which has neither member of its own). */
const typedLength = (typed: Record<string, unknown>, base: number): number => {
  let length = base
  let empty = base === 2 // `{}`: no comma joins the added members to the stored ones
  for (const key of typeMetaKeys) {
    const measured = jsonLength(typed[key])
    if (measured === 0) continue
    length += keyLength(key) + 1 + measured + (empty ? 0 : 1)
    empty = false
  }
  return length
}

const typeMetaKeys = ["kind", "apiVersion"] as const

/**
 * The items of a paged LIST of a whole type are slices of one array of the stored versions in key order, kept until
 * the type's next write (`Store.page`): each slice's length is the difference of two prefix sums over that array,
 * summed once for all its slices. Summing 150,000 pods' remembered lengths for every LIST every 10 s was ~5 % of the
 * clients' hour (docs/benchmarks.md "With clients").
 */
const slices = new WeakMap<ReadonlyArray<object>, { readonly run: ReadonlyArray<object>; readonly from: number; readonly to: number }>()
const prefixSums = new WeakMap<ReadonlyArray<object>, Float64Array>()

/** `run.slice(from, to)`, whose `storedItemsLength` is then read from `run`'s prefix sums. Neither array may change. */
export const sliceOfStored = <A extends object>(run: ReadonlyArray<A>, from: number, to: number): Array<A> => {
  const items = run.slice(from, to)
  slices.set(items, { run, from, to })
  return items
}

/** The sum of `storedJsonLength` over `items` (a LIST's: the members of its `items` array, without commas). */
export const storedItemsLength = (items: ReadonlyArray<object>): number => {
  const slice = slices.get(items)
  if (slice === undefined) {
    let length = 0
    for (let i = 0; i < items.length; i++) length += storedJsonLength(items[i]!)
    return length
  }
  let sums = prefixSums.get(slice.run)
  if (sums === undefined) {
    const run = slice.run
    sums = new Float64Array(run.length + 1)
    for (let i = 0; i < run.length; i++) sums[i + 1] = sums[i]! + storedJsonLength(run[i]!)
    prefixSums.set(run, sums)
  }
  return sums[slice.to]! - sums[slice.from]!
}

const storedMember = (value: unknown, key: string): number => {
  if (typeof value !== "object" || value === null) return jsonLength(value)
  return key === "metadata" && !Array.isArray(value) ? recordLength(value as Record<string, unknown>, metadataMember) : topLevelLength(value)
}

const metadataMember = (value: unknown, key: string): number => {
  if (typeof value !== "object" || value === null) return jsonLength(value)
  if (key !== "managedFields" || !Array.isArray(value)) return partLength(value)
  let length = listLengths.get(value)
  if (length === undefined) listLengths.set(value, (length = jsonLength(value)))
  return length
}

/** A stored object's member other than metadata (spec, status, …): walked, its own members measured once per object. */
const topLevelLength = (value: object): number =>
  Array.isArray(value) || typeof (value as { toJSON?: unknown }).toJSON === "function" ? jsonLength(value) : recordLength(value as Record<string, unknown>, partMember)

const partMember = (value: unknown): number => (typeof value === "object" && value !== null ? partLength(value) : jsonLength(value))

/**
 * Lengths of the parts one level below a stored object's members (a pod's containers and tolerations, its status's
 * conditions, its labels), remembered per object: stored objects are never changed and these parts are shared —
 * between an object's versions (a status PATCH keeps the spec's lists) and between objects (pods seeded together share
 * their containers, tolerations and Pending conditions, SeedPods.ts). The scheduler's first LIST measures all 150,000
 * seeded pods; walking each one's shared lists was most of that (docs/cluster.md "The pod-start storm's status
 * patches"). The members themselves (spec, status) are walked: most are an object's own.
 */
const partLengths = new WeakMap<object, number>()

const partLength = (part: object): number => {
  let length = partLengths.get(part)
  if (length === undefined) partLengths.set(part, (length = jsonLength(part)))
  return length
}
