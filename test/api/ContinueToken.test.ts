import { describe, expect, it } from "@effect/vitest"
import { Either, Option } from "effect"
import { decodeContinue, encodeContinue } from "../../src/api/ContinueToken.js"

const example = "eyJ2IjoibWV0YS5wbGF0Zm9ybS92MSIsInJ2IjoxMjM0NSwic3RhcnQiOiJkZWZhdWx0L2Zvb1x1MDAwMCJ9"
const b64 = (json: string) => Buffer.from(json, "utf8").toString("base64url")
const messageOf = (token: string) => Either.getLeft(decodeContinue(token)).pipe(Option.getOrThrow).status.message
const invalid = (detail: string) => `invalid continue token: continue key is not valid: ${detail}`

describe("encodeContinue", () => {
  it("encodes an upstream token exactly", () => {
    expect(encodeContinue({ rv: 12345, start: "default/foo\u0000" })).toBe(example)
  })

  it("writes keys v, rv, start in that order, unpadded and URL-safe", () => {
    const token = encodeContinue({ rv: -1, start: "ns/a>b&c\u0000" })
    expect(token).not.toMatch(/[=+/]/)
    expect(Buffer.from(token, "base64url").toString("utf8")).toBe(
      '{"v":"meta.platform/v1","rv":-1,"start":"ns/a\\u003eb\\u0026c\\u0000"}'
    )
  })

  it("escapes control characters the way Go does", () => {
    const token = encodeContinue({ rv: 1, start: 'a"\\\n\b\u2028' })
    expect(Buffer.from(token, "base64url").toString("utf8")).toBe(
      '{"v":"meta.platform/v1","rv":1,"start":"a\\"\\\\\\n\\u0008\\u2028"}'
    )
  })
})

describe("decodeContinue", () => {
  it("decodes an upstream token", () => {
    expect(decodeContinue(example)).toEqual(Either.right({ rv: 12345, start: "default/foo\u0000" }))
  })

  it("round-trips rv -1 and unusual keys", () => {
    for (const pos of [
      { rv: -1, start: "foo\u0000" },
      { rv: 9007199254740991, start: "a/b\u0000" },
      { rv: 7, start: "ünï/cödé<&>\u0000" }
    ]) {
      expect(decodeContinue(encodeContinue(pos))).toEqual(Either.right(pos))
    }
  })

  it("answers a malformed token with the full 400 Status", () => {
    expect(Either.getLeft(decodeContinue("eyJ2=")).pipe(Option.getOrThrow).status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "invalid continue token: continue key is not valid: illegal base64 data at input byte 4",
      reason: "BadRequest",
      code: 400
    })
  })

  it("reports base64 errors at Go's offsets", () => {
    expect(messageOf("abc!")).toBe(invalid("illegal base64 data at input byte 3"))
    expect(messageOf("a")).toBe(invalid("illegal base64 data at input byte 0"))
    expect(messageOf("abcde")).toBe(invalid("illegal base64 data at input byte 4"))
    // the standard alphabet and padding are not RawURLEncoding
    expect(messageOf("ab+d")).toBe(invalid("illegal base64 data at input byte 2"))
    expect(messageOf("eyJ9==")).toBe(invalid("illegal base64 data at input byte 4"))
    expect(messageOf(example.slice(0, 9) + "." + example.slice(9))).toBe(invalid("illegal base64 data at input byte 9"))
  })

  it("skips line breaks inside the base64 text", () => {
    const split = example.slice(0, 10) + "\r\n" + example.slice(10)
    expect(decodeContinue(split)).toEqual(Either.right({ rv: 12345, start: "default/foo\u0000" }))
  })

  it("rejects an rv of 0", () => {
    expect(messageOf(b64('{"v":"meta.platform/v1","rv":0,"start":"a"}'))).toBe(
      invalid("incorrect encoded start resourceVersion (version meta.platform/v1)")
    )
    expect(messageOf(b64('{"v":"meta.platform/v1","start":"a"}'))).toBe(
      invalid("incorrect encoded start resourceVersion (version meta.platform/v1)")
    )
  })

  it("rejects an empty start key", () => {
    expect(messageOf(b64('{"v":"meta.platform/v1","rv":5,"start":""}'))).toBe(
      invalid("encoded start key empty (version meta.platform/v1)")
    )
  })

  it("rejects another version, unquoted", () => {
    expect(messageOf(b64('{"v":"meta.k8s.io/v1","rv":5,"start":"a"}'))).toBe(
      invalid("server does not recognize this encoded version meta.k8s.io/v1")
    )
    expect(messageOf(b64('{"rv":5,"start":"a"}'))).toBe(invalid("server does not recognize this encoded version "))
  })

  it("rejects a start key that path.Clean would change", () => {
    expect(messageOf(b64('{"v":"meta.platform/v1","rv":5,"start":"a/../../b"}'))).toBe(invalid("a/../../b"))
    expect(messageOf(b64('{"v":"meta.platform/v1","rv":5,"start":"a//b"}'))).toBe(invalid("a//b"))
    expect(messageOf(b64('{"v":"meta.platform/v1","rv":5,"start":"a/"}'))).toBe(invalid("a/"))
    expect(messageOf(b64('{"v":"meta.platform/v1","rv":5,"start":"./a"}'))).toBe(invalid("./a"))
  })

  it("drops a leading slash from the start key", () => {
    expect(decodeContinue(b64('{"v":"meta.platform/v1","rv":5,"start":"/a/b"}'))).toEqual(Either.right({ rv: 5, start: "a/b" }))
  })

  it("matches keys case-insensitively and ignores unknown keys, as Go's json does", () => {
    expect(decodeContinue(b64('{"V":"meta.platform/v1","Rv":5,"START":"a","rc":3}'))).toEqual(Either.right({ rv: 5, start: "a" }))
  })

  it("reports JSON syntax errors with Go's texts", () => {
    expect(messageOf("")).toBe(invalid("unexpected end of JSON input"))
    expect(messageOf(b64("{"))).toBe(invalid("unexpected end of JSON input"))
    expect(messageOf(b64("nope"))).toBe(invalid("invalid character 'o' in literal null (expecting 'u')"))
    expect(messageOf(b64("x"))).toBe(invalid("invalid character 'x' looking for beginning of value"))
    expect(messageOf(b64("{v:1}"))).toBe(invalid("invalid character 'v' looking for beginning of object key string"))
    expect(messageOf(b64('{"v" 1}'))).toBe(invalid("invalid character '1' after object key"))
    expect(messageOf(b64('{"v":1 "rv":2}'))).toBe(invalid("invalid character '\"' after object key:value pair"))
    expect(messageOf(b64("[1 2]"))).toBe(invalid("invalid character '2' after array element"))
    expect(messageOf(b64("{} x"))).toBe(invalid("invalid character 'x' after top-level value"))
    expect(messageOf(b64('{"rv":-x}'))).toBe(invalid("invalid character 'x' in numeric literal"))
    expect(messageOf(b64('{"rv":1.}'))).toBe(invalid("invalid character '}' after decimal point in numeric literal"))
    expect(messageOf(b64('{"rv":1e}'))).toBe(invalid("invalid character '}' in exponent of numeric literal"))
    expect(messageOf(b64('{"start":"\\q"}'))).toBe(invalid("invalid character 'q' in string escape code"))
    expect(messageOf(b64('{"start":"\\u12x4"}'))).toBe(invalid("invalid character 'x' in \\u hexadecimal character escape"))
    expect(messageOf(b64('{"start":"a\tb"}'))).toBe(invalid("invalid character '\\t' in string literal"))
    expect(messageOf(b64("{'v':1}"))).toBe(invalid("invalid character '\\'' looking for beginning of object key string"))
  })

  it("reports type errors with Go's texts", () => {
    expect(messageOf(b64('{"v":"meta.platform/v1","rv":"5","start":"a"}'))).toBe(
      invalid("json: cannot unmarshal string into Go struct field continueToken.rv of type int64")
    )
    expect(messageOf(b64('{"v":"meta.platform/v1","rv":1.5,"start":"a"}'))).toBe(
      invalid("json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64")
    )
    expect(messageOf(b64('{"v":"meta.platform/v1","rv":9223372036854775808,"start":"a"}'))).toBe(
      invalid("json: cannot unmarshal number 9223372036854775808 into Go struct field continueToken.rv of type int64")
    )
    expect(messageOf(b64('{"v":1,"rv":true,"start":"a"}'))).toBe(
      invalid("json: cannot unmarshal number into Go struct field continueToken.v of type string")
    )
    expect(messageOf(b64("[1]"))).toBe(invalid("json: cannot unmarshal array into Go value of type storage.continueToken"))
    expect(messageOf(b64('"x"'))).toBe(invalid("json: cannot unmarshal string into Go value of type storage.continueToken"))
  })

  it("treats JSON null like Go: a zero token", () => {
    expect(messageOf(b64("null"))).toBe(invalid("server does not recognize this encoded version "))
    expect(messageOf(b64('{"v":"meta.platform/v1","rv":null,"start":"a"}'))).toBe(
      invalid("incorrect encoded start resourceVersion (version meta.platform/v1)")
    )
  })

  it("decodes JSON escapes in the start key", () => {
    expect(decodeContinue(b64('{"v":"meta.platform/v1","rv":3,"start":"a\\u0026\\ud83d\\ude00\\u0000"}'))).toEqual(
      Either.right({ rv: 3, start: "a&😀\u0000" })
    )
  })

  it("parses any nesting without recursion and stops at encoding/json's max depth of 10000", () => {
    // The recursive parser died at ~6,500 levels (RangeError) and took the process down.
    const nested = (n: number, open = "[", close = "]") => open.repeat(n) + close.repeat(n)
    expect(messageOf(b64(nested(10000)))).toBe(invalid("json: cannot unmarshal array into Go value of type storage.continueToken"))
    expect(messageOf(b64(nested(10001)))).toBe(invalid("invalid character '[' exceeded max depth"))
    expect(messageOf(b64(nested(200000)))).toBe(invalid("invalid character '[' exceeded max depth"))
    expect(messageOf(b64('{"v":' + '{"a":'.repeat(10000)))).toBe(invalid("invalid character '{' exceeded max depth"))
    // A syntax error before the limit is reported first, as Go's scanner meets it first.
    expect(messageOf(b64("[".repeat(50) + "x" + "[".repeat(20000)))).toBe(invalid("invalid character 'x' looking for beginning of value"))
    expect(decodeContinue(b64('{"v":"meta.platform/v1","rv":3,"start":"a","deep":' + nested(9000) + "}"))).toEqual(Either.right({ rv: 3, start: "a" }))
  })
})

describe("issued tokens", () => {
  // A newline inside the token is skipped by Go's decoder, so the same token with one goes the whole decoding way.
  const decodedTheGoWay = (token: string) => decodeContinue(`${token.slice(0, 4)}\n${token.slice(4)}`)

  it("decode from what their issue remembered exactly as the Go way decodes them, failures included", () => {
    const positions = [
      { rv: 12345, start: "default/foo\u0000" },
      { rv: -1, start: "ns/a>b&c\"d\\e\u0001\u0000" },
      { rv: 7, start: "ns/../x\u0000" },
      { rv: 7, start: "ns//x\u0000" },
      { rv: 5, start: "/ns/x\u0000" },
      { rv: 0, start: "ns/x\u0000" },
      { rv: 9, start: "" },
      { rv: 1e21, start: "ns/x\u0000" },
      { rv: 3, start: "ns/\ud800lone\u0000" },
      { rv: 3, start: "ns/😀\u0000" }
    ]
    for (const position of positions) {
      const token = encodeContinue(position)
      expect(decodeContinue(token)).toEqual(decodedTheGoWay(token))
    }
    expect(decodeContinue(encodeContinue({ rv: 12345, start: "default/foo\u0000" }))).toEqual(Either.right({ rv: 12345, start: "default/foo\u0000" }))
    expect(messageOf(encodeContinue({ rv: 0, start: "ns/x\u0000" }))).toBe(invalid("incorrect encoded start resourceVersion (version meta.platform/v1)"))
  })
})
