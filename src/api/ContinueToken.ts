/**
 * The list continue token (`kubernetes/apiserver: pkg/storage/continue.go`):
 * unpadded URL-safe base64 of `{"v":"meta.platform/v1","rv":<int64>,"start":"<key after prefix>\u0000"}`.
 * Decoding reproduces the Go decoders' error texts (`encoding/base64`, `encoding/json`), since they reach
 * the client inside the 400 `invalid continue token: continue key is not valid: …`.
 */
import { Either } from "effect"
import { type ApiError, badRequest } from "./Status.js"

export const continueTokenVersion = "meta.platform/v1"

export interface ContinuePosition {
  /** The list's read revision; -1 means "continue at the latest revision" (issued with a 410). */
  readonly rv: number
  /** The key to resume at, relative to the list prefix: the last returned key + `\u0000`. */
  readonly start: string
}

// ---------------------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------------------

const hex4 = (n: number) => n.toString(16).padStart(4, "0")

/** Go's `json.Marshal` of a string (Go 1.19/1.20): HTML-safe, `\u00XX` for control bytes other than \n \r \t. */
const goJsonString = (s: string): string => {
  let out = '"'
  for (const ch of s) {
    const c = ch.codePointAt(0)!
    if (ch === '"') out += '\\"'
    else if (ch === "\\") out += "\\\\"
    else if (ch === "\n") out += "\\n"
    else if (ch === "\r") out += "\\r"
    else if (ch === "\t") out += "\\t"
    else if (c < 0x20 || ch === "<" || ch === ">" || ch === "&" || c === 0x2028 || c === 0x2029) out += `\\u${hex4(c)}`
    else if (c >= 0xd800 && c <= 0xdfff) out += "\\ufffd" // a lone surrogate is not valid UTF-8
    else out += ch
  }
  return out + '"'
}

/** The token for a page that ends at `start` (last key + `\u0000`), read at revision `rv`. */
export const encodeContinue = (pos: ContinuePosition): string => {
  const json = `{"v":${goJsonString(continueTokenVersion)},"rv":${Math.trunc(pos.rv)},"start":${goJsonString(pos.start)}}`
  const token = Buffer.from(json, "utf8").toString("base64url")
  // what decoding it will give, unless its key has a surrogate (a lone one is encoded as U+FFFD, above) or its
  // revision is no int64 in JSON
  if (Number.isSafeInteger(Math.trunc(pos.rv)) && !/[\ud800-\udfff]/.test(pos.start)) {
    const position = checkedPosition({ v: continueTokenVersion, rv: BigInt(Math.trunc(pos.rv)), start: pos.start })
    if (Either.isRight(position)) remember(token, position.right)
  }
  return token
}

/**
 * The positions of the tokens this process issued, by token: a paged LIST's next request brings its token back, and
 * decoding it the Go way below (for the byte-exact error texts) made ~12 KB of garbage per page. Bounded: a token
 * not found is decoded.
 */
const issued = new Map<string, ContinuePosition>()
const issuedCapacity = 4_096

const remember = (token: string, position: ContinuePosition): void => {
  if (issued.size >= issuedCapacity) issued.clear()
  issued.set(token, position)
}

// ---------------------------------------------------------------------------------------------------------
// Go's base64.RawURLEncoding decoder (non-strict): same offsets in `illegal base64 data at input byte N`
// ---------------------------------------------------------------------------------------------------------

class GoError {
  constructor(readonly message: string) {}
}

const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
const decodeMap = new Int16Array(256).fill(-1)
for (let i = 0; i < base64Alphabet.length; i++) decodeMap[base64Alphabet.charCodeAt(i)] = i

const corrupt = (offset: number) => new GoError(`illegal base64 data at input byte ${offset}`)

/** One 4-character quantum at a time, as `decodeQuantum` does; \r and \n are skipped; no padding allowed. */
const decodeRawUrlBase64 = (src: Uint8Array): Uint8Array => {
  const out: Array<number> = []
  let si = 0
  while (si < src.length) {
    const dbuf = [0, 0, 0, 0]
    let dlen = 4
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Uint8Array.from(out)
        if (j === 1) throw corrupt(si - j)
        dlen = j
        break
      }
      const c = src[si]!
      si++
      const v = decodeMap[c]!
      if (v >= 0) {
        dbuf[j] = v
        continue
      }
      if (c === 0x0a || c === 0x0d) {
        j--
        continue
      }
      throw corrupt(si - 1)
    }
    const val = (dbuf[0]! << 18) | (dbuf[1]! << 12) | (dbuf[2]! << 6) | dbuf[3]!
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff]
    out.push(...bytes.slice(0, dlen - 1))
  }
  return Uint8Array.from(out)
}

// ---------------------------------------------------------------------------------------------------------
// Go's encoding/json: syntax check first (scanner texts), then decoding into the token struct
// ---------------------------------------------------------------------------------------------------------

type JsonValue =
  | { readonly kind: "object"; readonly entries: ReadonlyArray<readonly [string, JsonValue]> }
  | { readonly kind: "array"; readonly items: ReadonlyArray<JsonValue> }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "number"; readonly raw: string }
  | { readonly kind: "bool" }
  | { readonly kind: "null" }

/** Go's `quoteChar` for a byte in a syntax error. */
const quoteChar = (c: number): string => {
  if (c === 0x27) return "'\\''"
  if (c === 0x22) return "'\"'"
  const named: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 0x5c: "\\\\" }
  if (named[c] !== undefined) return `'${named[c]}'`
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, "0")}'`
  // Go quotes the byte as the rune U+00XX; C1 controls, NBSP and the soft hyphen are not printable.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u00${c.toString(16).padStart(2, "0")}'`
  return `'${String.fromCharCode(c)}'`
}

const utf8 = new TextDecoder("utf-8", { fatal: false })

/** `encoding/json`'s `maxNestingDepth`. */
export const maxNestingDepth = 10000

const parseGoJson = (data: Uint8Array): JsonValue => {
  let i = 0
  const eof = () => new GoError("unexpected end of JSON input")
  const bad = (context: string) => new GoError(`invalid character ${quoteChar(data[i]!)} ${context}`)
  const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d
  const skip = () => {
    while (i < data.length && isSpace(data[i]!)) i++
  }
  const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39
  const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46)

  const literal = (word: string): void => {
    for (let k = 1; k < word.length; k++) {
      i++
      if (i >= data.length) throw eof()
      if (data[i] !== word.charCodeAt(k)) throw bad(`in literal ${word} (expecting '${word[k]}')`)
    }
    i++
  }

  const number = (): JsonValue => {
    const begin = i
    if (data[i] === 0x2d) {
      i++
      if (i >= data.length) throw eof()
      if (!isDigit(data[i])) throw bad("in numeric literal")
    }
    if (data[i] === 0x30) i++
    else while (isDigit(data[i])) i++
    if (data[i] === 0x2e) {
      i++
      if (i >= data.length) throw eof()
      if (!isDigit(data[i])) throw bad("after decimal point in numeric literal")
      while (isDigit(data[i])) i++
    }
    if (data[i] === 0x65 || data[i] === 0x45) {
      i++
      if (data[i] === 0x2b || data[i] === 0x2d) i++
      if (i >= data.length) throw eof()
      if (!isDigit(data[i])) throw bad("in exponent of numeric literal")
      while (isDigit(data[i])) i++
    }
    return { kind: "number", raw: utf8.decode(data.subarray(begin, i)) }
  }

  const string = (): string => {
    i++ // opening quote
    const bytes: Array<number> = []
    const units: Array<number> = []
    const flush = () => {
      if (bytes.length > 0) {
        const text = utf8.decode(Uint8Array.from(bytes))
        for (let k = 0; k < text.length; k++) units.push(text.charCodeAt(k))
        bytes.length = 0
      }
    }
    const readHex4 = (): number => {
      let v = 0
      for (let k = 0; k < 4; k++) {
        i++
        if (i >= data.length) throw eof()
        if (!isHex(data[i]!)) throw bad("in \\u hexadecimal character escape")
        v = v * 16 + parseInt(String.fromCharCode(data[i]!), 16)
      }
      return v
    }
    for (;;) {
      if (i >= data.length) throw eof()
      const c = data[i]!
      if (c === 0x22) {
        i++
        flush()
        let text = ""
        for (let k = 0; k < units.length; k += 4096) text += String.fromCharCode(...units.slice(k, k + 4096))
        return text
      }
      if (c < 0x20) throw bad("in string literal")
      if (c !== 0x5c) {
        bytes.push(c)
        i++
        continue
      }
      i++
      if (i >= data.length) throw eof()
      const e = data[i]!
      const simple: Record<number, number> = { 0x62: 8, 0x66: 12, 0x6e: 10, 0x72: 13, 0x74: 9, 0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f }
      if (simple[e] !== undefined) {
        flush()
        units.push(simple[e]!)
        i++
        continue
      }
      if (e !== 0x75) throw bad("in string escape code")
      flush()
      const u = readHex4()
      i++
      if (u >= 0xd800 && u < 0xdc00 && data[i] === 0x5c && data[i + 1] === 0x75) {
        // a surrogate pair; upstream validates the second escape the same way
        const save = i
        i++
        const low = readHex4()
        i++
        if (low >= 0xdc00 && low < 0xe000) {
          units.push(u, low)
          continue
        }
        i = save
        units.push(0xfffd)
        continue
      }
      units.push(u >= 0xd800 && u < 0xe000 ? 0xfffd : u)
    }
  }

  const scalar = (context: string): JsonValue => {
    const c = data[i]!
    switch (c) {
      case 0x22:
        return { kind: "string", value: string() }
      case 0x74:
        literal("true")
        return { kind: "bool" }
      case 0x66:
        literal("false")
        return { kind: "bool" }
      case 0x6e:
        literal("null")
        return { kind: "null" }
      default:
        if (c === 0x2d || isDigit(c)) return number()
        throw bad(context)
    }
  }

  /** After `{` or `,` in an object: the key and its colon. */
  const objectKey = (): string => {
    skip()
    if (i >= data.length) throw eof()
    if (data[i] !== 0x22) throw bad("looking for beginning of object key string")
    const key = string()
    skip()
    if (i >= data.length) throw eof()
    if (data[i] !== 0x3a) throw bad("after object key")
    i++
    return key
  }

  /**
   * One value with an explicit stack instead of recursion, so any nesting is safe; like Go's scanner it
   * fails past `maxNestingDepth` open containers (`encoding/json` scanner.go `pushParseState`).
   */
  const value = (): JsonValue => {
    type Frame = { readonly entries?: Array<readonly [string, JsonValue]>; readonly items?: Array<JsonValue>; key: string }
    const stack: Array<Frame> = []
    for (;;) {
      // Read the start of a value.
      skip()
      if (i >= data.length) throw eof()
      const c = data[i]!
      let done: JsonValue | undefined
      if (c === 0x7b || c === 0x5b) {
        if (stack.length + 1 > maxNestingDepth) throw bad("exceeded max depth")
        i++
        skip()
        if (i >= data.length) throw eof()
        if (c === 0x7b && data[i] === 0x7d) {
          i++
          done = { kind: "object", entries: [] }
        } else if (c === 0x5b && data[i] === 0x5d) {
          i++
          done = { kind: "array", items: [] }
        } else if (c === 0x7b) {
          stack.push({ entries: [], key: objectKey() })
          continue
        } else {
          stack.push({ items: [], key: "" })
          continue
        }
      } else done = scalar("looking for beginning of value")
      // Close every container the value completes.
      for (;;) {
        const frame = stack[stack.length - 1]
        if (frame === undefined) return done
        if (frame.entries) frame.entries.push([frame.key, done])
        else frame.items!.push(done)
        skip()
        if (i >= data.length) throw eof()
        if (data[i] === 0x2c) {
          i++
          if (frame.entries) frame.key = objectKey()
          break
        }
        if (data[i] === (frame.entries ? 0x7d : 0x5d)) {
          i++
          stack.pop()
          done = frame.entries ? { kind: "object", entries: frame.entries } : { kind: "array", items: frame.items! }
          continue
        }
        throw bad(frame.entries ? "after object key:value pair" : "after array element")
      }
    }
  }

  const top = value()
  skip()
  if (i < data.length) throw bad("after top-level value")
  return top
}

const describe = (v: JsonValue): string => (v.kind === "number" ? "number" : v.kind)

/** `json.Unmarshal` into `storage.continueToken`: keys match case-insensitively, the first type error wins. */
const decodeToken = (v: JsonValue): { v: string; rv: bigint; start: string } => {
  const token = { v: "", rv: 0n, start: "" }
  if (v.kind === "null") return token
  if (v.kind !== "object") throw new GoError(`json: cannot unmarshal ${describe(v)} into Go value of type storage.continueToken`)
  let firstError: GoError | undefined
  const typeError = (value: string, field: string, type: string) => {
    firstError ??= new GoError(`json: cannot unmarshal ${value} into Go struct field continueToken.${field} of type ${type}`)
  }
  for (const [key, value] of v.entries) {
    const field = key.toLowerCase()
    if (field !== "v" && field !== "rv" && field !== "start") continue
    if (value.kind === "null") continue
    if (field === "rv") {
      if (value.kind !== "number") typeError(describe(value), "rv", "int64")
      else {
        const rv = /^-?[0-9]+$/.test(value.raw) ? BigInt(value.raw) : undefined
        if (rv === undefined || rv < -(2n ** 63n) || rv >= 2n ** 63n) typeError(`number ${value.raw}`, "rv", "int64")
        else token.rv = rv
      }
    } else if (value.kind !== "string") typeError(describe(value), field, "string")
    else token[field] = value.value
  }
  if (firstError) throw firstError
  return token
}

/** Go's `path.Clean` for a rooted path. */
const cleanRooted = (p: string): string => {
  const out: Array<string> = []
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue
    if (part === "..") out.pop()
    else out.push(part)
  }
  return "/" + out.join("/")
}

const invalidToken = (detail: string) => badRequest(`invalid continue token: continue key is not valid${detail}`)

/**
 * Decodes a `continue` query value. Every failure is a 400 BadRequest
 * `invalid continue token: continue key is not valid…` (`continue.go`, `etcd3/store.go`). `start` comes back relative
 * to the list prefix, as `path.Clean` left it (a leading `/` is dropped).
 */
export const decodeContinue = (token: string): Either.Either<ContinuePosition, ApiError> => {
  const known = issued.get(token)
  if (known !== undefined) return Either.right(known)
  let decoded: { v: string; rv: bigint; start: string }
  try {
    decoded = decodeToken(parseGoJson(decodeRawUrlBase64(Buffer.from(token, "utf8"))))
  } catch (e) {
    if (e instanceof GoError) return Either.left(invalidToken(`: ${e.message}`))
    throw e
  }
  return checkedPosition(decoded)
}

/** A decoded token's fields as a position, or why they are not one. */
const checkedPosition = (decoded: { readonly v: string; readonly rv: bigint; readonly start: string }): Either.Either<ContinuePosition, ApiError> => {
  if (decoded.v !== continueTokenVersion) {
    return Either.left(invalidToken(`: server does not recognize this encoded version ${decoded.v}`))
  }
  if (decoded.rv === 0n) {
    return Either.left(invalidToken(`: incorrect encoded start resourceVersion (version ${continueTokenVersion})`))
  }
  if (decoded.start.length === 0) {
    return Either.left(invalidToken(`: encoded start key empty (version ${continueTokenVersion})`))
  }
  // path.Clean guards against a start key that climbs above the list prefix
  const key = decoded.start.startsWith("/") ? decoded.start : "/" + decoded.start
  const cleaned = cleanRooted(key)
  if (cleaned !== key) return Either.left(invalidToken(`: ${decoded.start}`))
  return Either.right({ rv: Number(decoded.rv), start: cleaned.slice(1) })
}
