/**
 * Name syntax (DNS-1123 subdomain and label, qualified names, label values) with the upstream message
 * texts, and the generic ObjectMeta rules every kind's create and update share
 * (`k8s.io/apimachinery/pkg/api/validation/objectmeta.go` plus the core finalizer-name rule, 1.26).
 *
 * The syntax checks are hand-written scans rather than regexes: linear whatever the input (Go's RE2 is).
 */
import { type FieldError, forbidden, noFieldErrors, GoTime, type GoValue, invalid, required, tooLong } from "../FieldError.js"
import { goQuote } from "../go/Quote.js"
import { isRecord, type KObject } from "../Object.js"
import { instantToIso, parseGoTime } from "../go/Time.js"

const byteLength = (s: string): number => Buffer.byteLength(s, "utf8")

/** `RegexError`: the message, the examples, then the regex (two spaces between examples, as upstream). */
const regexError = (msg: string, fmt: string, ...examples: string[]): string =>
  examples.length === 0
    ? `${msg} (regex used for validation is '${fmt}')`
    : `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${fmt}')`

export const maxLenError = (n: number): string => `must be no more than ${n} characters`
export const emptyError = "must be non-empty"

const isLowerAlnum = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57)
const isAlnum = (c: number) => isLowerAlnum(c) || (c >= 65 && c <= 90)

/** Non-empty, alphanumeric at both ends, `inner` allowed between. */
const isToken = (s: string, edge: (c: number) => boolean, inner: (c: number) => boolean): boolean => {
  if (s.length === 0) return false
  if (!edge(s.charCodeAt(0)) || !edge(s.charCodeAt(s.length - 1))) return false
  for (let i = 1; i < s.length - 1; i++) if (!inner(s.charCodeAt(i))) return false
  return true
}

const isLabelToken = (s: string) => isToken(s, isLowerAlnum, (c) => isLowerAlnum(c) || c === 45)
const isQualifiedToken = (s: string) => isToken(s, isAlnum, (c) => isAlnum(c) || c === 45 || c === 95 || c === 46)

const dns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`
const qualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"

export const dns1123LabelMessage = regexError(
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
  dns1123LabelFmt,
  "my-name",
  "123-abc"
)
export const dns1123SubdomainMessage = regexError(
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
  dns1123SubdomainFmt,
  "example.com"
)
const qualifiedNameMessage = regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc")
const labelValueMessage = regexError(
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  `(${qualifiedNameFmt})?`,
  "MyValue",
  "my_value",
  "12345"
)

/** `IsDNS1123Label`: ≤ 63 characters, lowercase alphanumerics and `-`. */
export const isDNS1123Label = (value: string): string[] => {
  const errs: string[] = []
  if (byteLength(value) > 63) errs.push(maxLenError(63))
  if (!isLabelToken(value)) errs.push(dns1123LabelMessage)
  return errs
}

const dns1035LabelMessage = regexError(
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
  "[a-z]([-a-z0-9]*[a-z0-9])?",
  "my-name",
  "abc-123"
)

/** `IsDNS1035Label`: a DNS-1123 label that starts with a letter (a Service's name). */
export const isDNS1035Label = (value: string): string[] => {
  const errs: string[] = []
  if (byteLength(value) > 63) errs.push(maxLenError(63))
  if (!isLabelToken(value) || !(value.charCodeAt(0) >= 97 && value.charCodeAt(0) <= 122)) errs.push(dns1035LabelMessage)
  return errs
}

/** `IsDNS1123Subdomain`: ≤ 253 characters, dot-separated DNS labels. */
export const isDNS1123Subdomain = (value: string): string[] => {
  const errs: string[] = []
  if (byteLength(value) > 253) errs.push(maxLenError(253))
  if (!value.split(".").every(isLabelToken)) errs.push(dns1123SubdomainMessage)
  return errs
}

/** `IsQualifiedName`: `[prefix/]name`, prefix a DNS subdomain, name ≤ 63 alphanumerics, `-`, `_`, `.`. */
export const isQualifiedName = (value: string): string[] => {
  const errs: string[] = []
  const parts = value.split("/")
  let name: string
  if (parts.length === 1) name = parts[0]!
  else if (parts.length === 2) {
    const prefix = parts[0]!
    name = parts[1]!
    if (prefix.length === 0) errs.push(`prefix part ${emptyError}`)
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`))
  } else {
    return [
      `a qualified name ${qualifiedNameMessage} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`
    ]
  }
  if (name.length === 0) errs.push(`name part ${emptyError}`)
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`)
  if (!isQualifiedToken(name)) errs.push(`name part ${qualifiedNameMessage}`)
  return errs
}

/**
 * `isDNS1123Subdomain(value)` finds nothing, decided without building messages or splitting: every label a token
 * (which admits ASCII only, so the length is the byte length) and at most 253 characters.
 */
const isDNS1123SubdomainOk = (value: string, from: number, to: number): boolean => {
  if (to - from > 253) return false
  for (let start = from; ; ) {
    const dot = value.indexOf(".", start)
    const end = dot < 0 || dot >= to ? to : dot
    if (!isLabelTokenIn(value, start, end)) return false
    if (end === to) return true
    start = end + 1
  }
}

/** `isLabelToken(value.slice(from, to))` without the slice. */
const isLabelTokenIn = (value: string, from: number, to: number): boolean => {
  if (to <= from) return false
  if (!isLowerAlnum(value.charCodeAt(from)) || !isLowerAlnum(value.charCodeAt(to - 1))) return false
  for (let i = from + 1; i < to - 1; i++) {
    const c = value.charCodeAt(i)
    if (!isLowerAlnum(c) && c !== 45) return false
  }
  return true
}

/** `isQualifiedName(value)` finds nothing: the same rules, decided without building messages or splitting. */
export const isQualifiedNameOk = (value: string): boolean => {
  const slash = value.indexOf("/")
  if (slash >= 0 && (value.indexOf("/", slash + 1) >= 0 || slash === 0 || !isDNS1123SubdomainOk(value, 0, slash))) return false
  // the name part; a qualified token is ASCII, so its length is its byte length
  const from = slash + 1
  const length = value.length - from
  if (length === 0 || length > 63) return false
  if (!isAlnum(value.charCodeAt(from)) || !isAlnum(value.charCodeAt(value.length - 1))) return false
  for (let i = from + 1; i < value.length - 1; i++) {
    const c = value.charCodeAt(i)
    if (!isAlnum(c) && c !== 45 && c !== 95 && c !== 46) return false
  }
  return true
}

/** `isValidLabelValue(value)` finds nothing. */
export const isLabelValueOk = (value: string): boolean => value === "" || (value.length <= 63 && isQualifiedToken(value))

/** `IsValidLabelValue`: empty, or ≤ 63 characters shaped like a qualified name. */
export const isValidLabelValue = (value: string): string[] => {
  const errs: string[] = []
  if (byteLength(value) > 63) errs.push(maxLenError(63))
  if (value !== "" && !isQualifiedToken(value)) errs.push(labelValueMessage)
  return errs
}

const configMapKeyFmt = "[-._a-zA-Z0-9]+"
const configMapKeyMessage = regexError(
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
  configMapKeyFmt,
  "key.name",
  "KEY_NAME",
  "key-name"
)
const isConfigMapKeyChar = (c: number) => isAlnum(c) || c === 45 || c === 95 || c === 46

/** `IsConfigMapKey` (ConfigMap and Secret keys): ≤ 253 bytes of alphanumerics, `-`, `_`, `.`; not `.`, `..` or `..*`. */
export const isConfigMapKey = (value: string): string[] => {
  const errs: string[] = []
  if (byteLength(value) > 253) errs.push(maxLenError(253))
  let valid = value.length > 0
  for (let i = 0; valid && i < value.length; i++) valid = isConfigMapKeyChar(value.charCodeAt(i))
  if (!valid) errs.push(configMapKeyMessage)
  // hasChDirPrefix
  if (value === ".") errs.push("must not be '.'")
  else if (value === "..") errs.push("must not be '..'")
  else if (value.startsWith("..")) errs.push("must not start with '..'")
  return errs
}

/** `NameIsDNSSubdomain`: a `generateName` prefix may end in `-` (masked before the check). */
export const nameIsDNSSubdomain = (name: string, prefix: boolean): string[] =>
  isDNS1123Subdomain(prefix && name.length > 1 && name.endsWith("-") ? `${name.slice(0, -1)}a` : name)

/** `NameIsDNSLabel` (namespace names, `ValidateNamespaceName`), with the same prefix masking. */
export const nameIsDNSLabel = (name: string, prefix: boolean): string[] =>
  isDNS1123Label(prefix && name.length > 1 && name.endsWith("-") ? `${name.slice(0, -1)}a` : name)

/** `NameIsDNS1035Label` (upstream's `ValidateServiceName`), with the same prefix masking. */
export const nameIsDNS1035Label = (name: string, prefix: boolean): string[] =>
  isDNS1035Label(prefix && name.length > 1 && name.endsWith("-") ? `${name.slice(0, -1)}a` : name)

export type NameRule = (name: string, prefix: boolean) => string[]

// --- ObjectMeta -----------------------------------------------------------------------------------

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
const standardFinalizers = new Set(["kubernetes", "orphan", "foregroundDeletion"])

const str = (v: unknown): string => (typeof v === "string" ? v : "")
const strMap = (v: unknown): ReadonlyArray<readonly [string, string]> =>
  isRecord(v) ? Object.entries(v).map(([k, x]) => [k, str(x)] as const) : []
const strList = (v: unknown): ReadonlyArray<string> => (Array.isArray(v) ? v.map(str) : [])

/**
 * `ValidateLabels`: qualified-name keys, label values. Labels are on most objects a create stores (a node registration has five): a label whose key and value pass
 * (`isQualifiedNameOk`, `isLabelValueOk`) costs no error arrays; only a failing one is given its messages.
 */
export const validateLabels = (labels: unknown, field: string): FieldError[] => {
  if (!isRecord(labels)) return []
  let errs: FieldError[] | undefined
  for (const k of Object.keys(labels)) {
    const v = str(labels[k])
    if (isQualifiedNameOk(k) && isLabelValueOk(v)) continue
    errs ??= []
    for (const m of isQualifiedName(k)) errs.push(invalid(field, k, m))
    for (const m of isValidLabelValue(v)) errs.push(invalid(field, v, m))
  }
  return errs ?? []
}

/** `ValidateAnnotations`: qualified-name keys (case aside), at most 256 KiB of keys and values together. */
export const validateAnnotations = (annotations: unknown, field: string): FieldError[] => {
  const entries = strMap(annotations)
  // Keys are qualified names, case aside.
  const errs = entries.flatMap(([k]) => isQualifiedName(k.toLowerCase()).map((m) => invalid(field, k, m)))
  const total = entries.reduce((n, [k, v]) => n + byteLength(k) + byteLength(v), 0)
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT))
  return errs
}

/** Per reference field; the "only one controller" rule is left out (its value prints as a Go struct). */
const validateOwnerReferences = (refs: unknown, field: string): FieldError[] => {
  if (!Array.isArray(refs)) return []
  return refs.flatMap((ref): FieldError[] => {
    const r = isRecord(ref) ? ref : {}
    const apiVersion = str(r.apiVersion)
    const slashes = apiVersion.split("/").length - 1
    const version = apiVersion === "/" || slashes > 1 ? "" : slashes === 1 ? apiVersion.split("/")[1]! : apiVersion
    const errs: FieldError[] = []
    if (version === "") errs.push(invalid(`${field}.apiVersion`, apiVersion, "version must not be empty"))
    if (str(r.kind) === "") errs.push(invalid(`${field}.kind`, str(r.kind), "kind must not be empty"))
    if (str(r.name) === "") errs.push(invalid(`${field}.name`, str(r.name), "name must not be empty"))
    if (str(r.uid) === "") errs.push(invalid(`${field}.uid`, str(r.uid), "uid must not be empty"))
    return errs
  })
}

const validateFinalizers = (finalizers: ReadonlyArray<string>, field: string): FieldError[] => {
  const errs = finalizers.flatMap((f) => isQualifiedName(f).map((m) => invalid(field, f, m)))
  if (finalizers.includes("orphan") && finalizers.includes("foregroundDeletion")) {
    errs.push(invalid(field, finalizers, "finalizer orphan and foregroundDeletion cannot be both set"))
  }
  return errs
}

/** The core API's extra rule: a finalizer without `/` must be a standard one. */
const validateKubeFinalizerNames = (finalizers: ReadonlyArray<string>, field: string): FieldError[] =>
  finalizers.flatMap((f, i) => {
    const path = `${field}[${i}]`
    const errs = isQualifiedName(f).map((m) => invalid(path, f, m))
    if (!f.includes("/") && !standardFinalizers.has(f)) {
      errs.push(invalid(path, f, "name is neither a standard finalizer name nor is it fully qualified"))
    }
    return errs
  })

const metaOf = (obj: KObject): Record<string, unknown> => (isRecord(obj.metadata) ? (obj.metadata as Record<string, unknown>) : {})

/**
 * ObjectMeta rules of a create (`ValidateObjectMeta` with `NameIsDNSSubdomain`), in upstream order:
 * generateName, name (`metadata.name: Required value: name or generateName is required` when empty —
 * raised here, after the server has turned a `generateName` into a name), namespace (required and a
 * DNS label when `namespaced`, else forbidden), generation, labels, annotations, ownerReferences,
 * finalizers. Map keys are visited in insertion order (Go's is random).
 */
export const validateObjectMetaCreate = (obj: KObject, namespaced: boolean, nameRule: NameRule = nameIsDNSSubdomain): FieldError[] => {
  const meta = metaOf(obj)
  const errs: FieldError[] = []
  const generateName = str(meta.generateName)
  if (generateName !== "") {
    errs.push(...nameRule(generateName, true).map((m) => invalid("metadata.generateName", generateName, m)))
  }
  const name = str(meta.name)
  if (name === "") errs.push(required("metadata.name", "name or generateName is required"))
  else errs.push(...nameRule(name, false).map((m) => invalid("metadata.name", name, m)))
  const namespace = str(meta.namespace)
  if (namespaced) {
    if (namespace === "") errs.push(required("metadata.namespace"))
    else errs.push(...isDNS1123Label(namespace).map((m) => invalid("metadata.namespace", namespace, m)))
  } else if (namespace !== "") {
    errs.push(forbidden("metadata.namespace", "not allowed on this type"))
  }
  const generation = typeof meta.generation === "number" ? meta.generation : 0
  if (generation < 0) errs.push(invalid("metadata.generation", generation, "must be greater than or equal to 0"))
  errs.push(...validateLabels(meta.labels, "metadata.labels"))
  errs.push(...validateAnnotations(meta.annotations, "metadata.annotations"))
  errs.push(...validateOwnerReferences(meta.ownerReferences, "metadata.ownerReferences"))
  const finalizers = strList(meta.finalizers)
  errs.push(...validateFinalizers(finalizers, "metadata.finalizers"))
  errs.push(...validateKubeFinalizerNames(finalizers, "metadata.finalizers"))
  return errs
}

const ZERO_TIME = "0001-01-01T00:00:00Z"

/** A `metav1.Time` as `field.Invalid` prints it (its `String()`), from its RFC3339 text. */
export const goTimeValue = (s: string): GoValue => {
  const t = parseGoTime(s, "RFC3339")
  return new GoTime("error" in t ? s : instantToIso(t))
}

/** Semantic equality of two RFC3339 times: the same instant (unset equals unset only). */
const sameInstant = (a: string, b: string): boolean => {
  if (a === b) return true
  if (a === "" || b === "") return false
  const x = parseGoTime(a, "RFC3339")
  const y = parseGoTime(b, "RFC3339")
  return !("error" in x) && !("error" in y) && x.seconds === y.seconds && x.nanos === y.nanos
}

const immutable = (field: string, now: unknown, before: unknown, shown: GoValue): FieldError[] =>
  now === before ? [] : [invalid(field, shown, "field is immutable")]

/**
 * ObjectMeta rules of an update (`ValidateObjectMetaUpdate`), in upstream order: no new finalizers while
 * deleting, generation not decremented, name / namespace / uid / creationTimestamp / deletionTimestamp /
 * deletionGracePeriodSeconds immutable (`field is immutable`), then labels, annotations, ownerReferences
 * and finalizer names of the new object. The "resourceVersion must be specified" rule is not here: the
 * store answers a missing rv itself (`registry/generic/registry/store.go`) before validation runs.
 */
export const validateObjectMetaUpdate = (obj: KObject, old: KObject): ReadonlyArray<FieldError> => {
  const meta = metaOf(obj)
  const before = metaOf(old)
  // The stored metadata sent back unchanged passed these checks when it was stored.
  if (meta === before) return noFieldErrors
  const errs: FieldError[] = []
  const finalizers = strList(meta.finalizers)
  if (typeof before.deletionTimestamp === "string" && before.deletionTimestamp !== "") {
    const had = new Set(strList(before.finalizers))
    const extra = [...new Set(finalizers.filter((f) => !had.has(f)))].sort()
    if (extra.length > 0) {
      errs.push(
        forbidden(
          "metadata.finalizers",
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map(goQuote).join(", ")}}`
        )
      )
    }
  }
  const generation = typeof meta.generation === "number" ? meta.generation : 0
  const oldGeneration = typeof before.generation === "number" ? before.generation : 0
  if (generation < oldGeneration) errs.push(invalid("metadata.generation", generation, "must not be decremented"))
  for (const key of ["name", "namespace", "uid"] as const) {
    errs.push(...immutable(`metadata.${key}`, str(meta[key]), str(before[key]), str(meta[key])))
  }
  // creationTimestamp is a struct (unset prints as the zero time), deletionTimestamp a pointer (`"null"`).
  const created = str(meta.creationTimestamp)
  if (!sameInstant(created, str(before.creationTimestamp))) {
    errs.push(invalid("metadata.creationTimestamp", goTimeValue(created || ZERO_TIME), "field is immutable"))
  }
  const deleted = str(meta.deletionTimestamp)
  if (!sameInstant(deleted, str(before.deletionTimestamp))) {
    errs.push(invalid("metadata.deletionTimestamp", deleted ? goTimeValue(deleted) : "null", "field is immutable"))
  }
  const grace = typeof meta.deletionGracePeriodSeconds === "number" ? meta.deletionGracePeriodSeconds : undefined
  const oldGrace = typeof before.deletionGracePeriodSeconds === "number" ? before.deletionGracePeriodSeconds : undefined
  errs.push(...immutable("metadata.deletionGracePeriodSeconds", grace, oldGrace, grace ?? "null"))
  // A part that is the old object's own value passed these checks when it was stored.
  if (meta.labels !== before.labels) errs.push(...validateLabels(meta.labels, "metadata.labels"))
  if (meta.annotations !== before.annotations) errs.push(...validateAnnotations(meta.annotations, "metadata.annotations"))
  if (meta.ownerReferences !== before.ownerReferences) errs.push(...validateOwnerReferences(meta.ownerReferences, "metadata.ownerReferences"))
  if (meta.finalizers !== before.finalizers) errs.push(...validateKubeFinalizerNames(finalizers, "metadata.finalizers"))
  return errs
}
