/**
 * `matchImages` (spec 001 "CredentialProvider" matching rules; upstream
 * `pkg/credentialprovider/keyring.go` `URLsMatch`, `ParseSchemelessURL`, `SplitURL`).
 *
 * Image and pattern are parsed as URLs after prefixing `https://` (the scheme then dropped). A pattern matches iff
 * the ports are equal (both may be empty), the hosts have the same number of `.`-separated parts, the image's path
 * starts with the pattern's path, and every host part matches its pattern part as a `filepath.Match` glob — so a
 * glob never crosses a dot: `*.example.io` matches `a.example.io`, not `example.io` nor `a.b.example.io`.
 *
 * The URL parser is the part of Go's `net/url.Parse` these inputs reach, with its error texts (they appear in
 * validation messages: `match image is invalid: parse "https://a b": invalid character " " in host name`).
 */
import { Either } from "effect"
import { goQuote } from "../../../src/api/go/Quote.js"

export interface SchemelessURL {
  /** Host with its port, as Go's `URL.Host`. */
  readonly host: string
  /** The unescaped path, as Go's `URL.Path`. */
  readonly path: string
}

const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c)
const isAlnum = (c: string): boolean => /^[a-zA-Z0-9]$/.test(c)
/** Characters `net/url` leaves unescaped in a host besides letters and digits. */
const hostExtra = new Set([..."!$&'()*+,;=:[]<>\"-_.~"])

/** `net/url` `unescape`: percent escapes decoded; in a host, characters that would need escaping are errors. */
const unescape = (s: string, host: boolean): Either.Either<string, string> => {
  let out = ""
  for (let i = 0; i < s.length; ) {
    const c = s[i]!
    if (c === "%") {
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) return Either.left(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`)
      if (host && parseInt(s[i + 1]!, 16) < 8 && s.slice(i, i + 3) !== "%25") return Either.left(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`)
      out += String.fromCharCode(parseInt(s.slice(i + 1, i + 3), 16))
      i += 3
      continue
    }
    if (host && c.charCodeAt(0) < 0x80 && !isAlnum(c) && !hostExtra.has(c)) return Either.left(`invalid character ${goQuote(c)} in host name`)
    out += c
    i++
  }
  return Either.right(out)
}

const validOptionalPort = (port: string): boolean => port === "" || (port[0] === ":" && /^[0-9]*$/.test(port.slice(1)))

const validUserinfo = (s: string): boolean => [...s].every((c) => isAlnum(c) || "-._:~!$&'()*+,;=%@".includes(c))

/** Go `url.parseHost`. */
const parseHost = (host: string): Either.Either<string, string> => {
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]")
    if (i < 0) return Either.left("missing ']' in host")
    const colonPort = host.slice(i + 1)
    if (!validOptionalPort(colonPort)) return Either.left(`invalid port ${goQuote(colonPort)} after host`)
  } else {
    const i = host.lastIndexOf(":")
    if (i !== -1) {
      const colonPort = host.slice(i)
      if (!validOptionalPort(colonPort)) return Either.left(`invalid port ${goQuote(colonPort)} after host`)
    }
  }
  return unescape(host, true)
}

/** Upstream `ParseSchemelessURL`: Go's `url.Parse("https://" + s)`; errors read `parse "<url>": <why>`. */
export const parseSchemelessURL = (schemeless: string): Either.Either<SchemelessURL, string> => {
  const raw = "https://" + schemeless
  const hash = raw.indexOf("#")
  const u = hash < 0 ? raw : raw.slice(0, hash)
  const fail = (why: string, url = u) => Either.left(`parse ${goQuote(url)}: ${why}`)
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) return fail("net/url: invalid control character in URL")
  let rest = u.slice("https:".length)
  const q = rest.indexOf("?")
  if (q >= 0) rest = rest.slice(0, q)
  let authority = rest.slice(2)
  let path = ""
  const slash = authority.indexOf("/")
  if (slash >= 0) {
    path = authority.slice(slash)
    authority = authority.slice(0, slash)
  }
  const at = authority.lastIndexOf("@")
  const host = parseHost(at < 0 ? authority : authority.slice(at + 1))
  if (Either.isLeft(host)) return fail(host.left)
  if (at >= 0 && !validUserinfo(authority.slice(0, at))) return fail("net/url: invalid userinfo")
  const unescapedPath = unescape(path, false)
  if (Either.isLeft(unescapedPath)) return fail(unescapedPath.left)
  if (hash >= 0) {
    const fragment = unescape(raw.slice(hash + 1), false)
    if (Either.isLeft(fragment)) return fail(fragment.left, raw)
  }
  return Either.right({ host: host.right, path: unescapedPath.right })
}

/** Go `net.SplitHostPort`, falling back to the whole host and no port on error (upstream `SplitURL`). */
const splitHostPort = (hostport: string): { host: string; port: string } | undefined => {
  const i = hostport.lastIndexOf(":")
  if (i < 0) return undefined
  let host: string
  let j = 0
  let k = 0
  if (hostport[0] === "[") {
    const end = hostport.indexOf("]")
    if (end < 0 || end + 1 !== i) return undefined
    host = hostport.slice(1, end)
    j = 1
    k = end + 1
  } else {
    host = hostport.slice(0, i)
    if (host.includes(":")) return undefined
  }
  if (hostport.slice(j).includes("[") || hostport.slice(k).includes("]")) return undefined
  return { host, port: hostport.slice(i + 1) }
}

/** Upstream `SplitURL`: the host's dot-separated parts and the port. */
export const splitURL = (url: SchemelessURL): { parts: ReadonlyArray<string>; port: string } => {
  const hp = splitHostPort(url.host) ?? { host: url.host, port: "" }
  return { parts: hp.host.split("."), port: hp.port }
}

export const badPattern = "syntax error in pattern"

/** Go `filepath.Match` on Unix (separator `/`), by code point. Left: `syntax error in pattern`. */
export const globMatch = (pattern: string, name: string): Either.Either<boolean, string> => {
  let p = [...pattern]
  let n = [...name]
  const scanChunk = (pat: Array<string>): { star: boolean; chunk: Array<string>; rest: Array<string> } => {
    let star = false
    while (pat.length > 0 && pat[0] === "*") {
      pat = pat.slice(1)
      star = true
    }
    let inrange = false
    let i = 0
    scan: for (; i < pat.length; i++) {
      switch (pat[i]) {
        case "\\":
          if (i + 1 < pat.length) i++
          break
        case "[":
          inrange = true
          break
        case "]":
          inrange = false
          break
        case "*":
          if (!inrange) break scan
      }
    }
    return { star, chunk: pat.slice(0, i), rest: pat.slice(i) }
  }
  const getEsc = (chunk: Array<string>): { r: string; chunk: Array<string> } | undefined => {
    if (chunk.length === 0 || chunk[0] === "-" || chunk[0] === "]") return undefined
    if (chunk[0] === "\\") {
      chunk = chunk.slice(1)
      if (chunk.length === 0) return undefined
    }
    const r = chunk[0]!
    const next = chunk.slice(1)
    if (next.length === 0) return undefined
    return { r, chunk: next }
  }
  /** Left: bad pattern; Right: the rest of `s` after the chunk, or undefined when it does not match. */
  const matchChunk = (chunk: Array<string>, s: Array<string>): Either.Either<Array<string> | undefined, string> => {
    let failed = false
    while (chunk.length > 0) {
      if (!failed && s.length === 0) failed = true
      const c = chunk[0]!
      if (c === "[") {
        let r = ""
        if (!failed) {
          r = s[0]!
          s = s.slice(1)
        }
        chunk = chunk.slice(1)
        let negated = false
        if (chunk.length > 0 && chunk[0] === "^") {
          negated = true
          chunk = chunk.slice(1)
        }
        let match = false
        let nrange = 0
        for (;;) {
          if (chunk.length > 0 && chunk[0] === "]" && nrange > 0) {
            chunk = chunk.slice(1)
            break
          }
          const lo = getEsc(chunk)
          if (lo === undefined) return Either.left(badPattern)
          chunk = lo.chunk
          let hi = lo.r
          if (chunk[0] === "-") {
            const h = getEsc(chunk.slice(1))
            if (h === undefined) return Either.left(badPattern)
            hi = h.r
            chunk = h.chunk
          }
          if (!failed && lo.r.codePointAt(0)! <= r.codePointAt(0)! && r.codePointAt(0)! <= hi.codePointAt(0)!) match = true
          nrange++
        }
        if (match === negated) failed = true
        continue
      }
      if (c === "?") {
        if (!failed) {
          if (s[0] === "/") failed = true
          s = s.slice(1)
        }
        chunk = chunk.slice(1)
        continue
      }
      if (c === "\\") {
        chunk = chunk.slice(1)
        if (chunk.length === 0) return Either.left(badPattern)
      }
      if (!failed) {
        if (chunk[0] !== s[0]) failed = true
        s = s.slice(1)
      }
      chunk = chunk.slice(1)
    }
    return Either.right(failed ? undefined : s)
  }
  pattern: while (p.length > 0) {
    const { star, chunk, rest } = scanChunk(p)
    p = rest
    if (star && chunk.length === 0) return Either.right(!n.includes("/"))
    const here = matchChunk(chunk, n)
    if (Either.isRight(here) && here.right !== undefined && (here.right.length === 0 || p.length > 0)) {
      n = here.right
      continue
    }
    if (Either.isLeft(here)) return Either.left(here.left)
    if (star) {
      for (let i = 0; i < n.length && n[i] !== "/"; i++) {
        const skipped = matchChunk(chunk, n.slice(i + 1))
        if (Either.isRight(skipped) && skipped.right !== undefined) {
          if (p.length === 0 && skipped.right.length > 0) continue
          n = skipped.right
          continue pattern
        }
        if (Either.isLeft(skipped)) return Either.left(skipped.left)
      }
    }
    // the rest of the pattern must still be well-formed
    while (p.length > 0) {
      const next = scanChunk(p)
      p = next.rest
      const check = matchChunk(next.chunk, [])
      if (Either.isLeft(check)) return Either.left(check.left)
    }
    return Either.right(false)
  }
  return Either.right(n.length === 0)
}

/** Upstream `URLsMatch`: does the pattern URL `glob` match `target`? Left: a bad glob. */
export const URLsMatch = (glob: SchemelessURL, target: SchemelessURL): Either.Either<boolean, string> => {
  const g = splitURL(glob)
  const t = splitURL(target)
  if (g.port !== t.port) return Either.right(false)
  if (g.parts.length !== t.parts.length) return Either.right(false)
  if (!target.path.startsWith(glob.path)) return Either.right(false)
  for (let k = 0; k < g.parts.length; k++) {
    const m = globMatch(g.parts[k]!, t.parts[k]!)
    if (Either.isLeft(m) || !m.right) return m
  }
  return Either.right(true)
}

/** Upstream `URLsMatchStr`. */
export const URLsMatchStr = (glob: string, target: string): Either.Either<boolean, string> =>
  Either.flatMap(parseSchemelessURL(glob), (g) => Either.flatMap(parseSchemelessURL(target), (t) => URLsMatch(g, t)))

/** A provider applies to an image iff any of its patterns matches (an unparsable one never does). */
export const matchesAny = (patterns: ReadonlyArray<string>, image: string): boolean =>
  patterns.some((p) => Either.getOrElse(URLsMatchStr(p, image), () => false))

/** Upstream `parseRegistry`: everything before the first `/` (the registry cache key). */
export const registryOf = (image: string): string => image.split("/")[0]!
