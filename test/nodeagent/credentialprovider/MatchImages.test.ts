import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { globMatch, matchesAny, parseSchemelessURL, registryOf, splitURL, URLsMatchStr } from "../../../simulator/nodeagent/credentialprovider/MatchImages.js"

const match = (pattern: string, image: string) => Either.getOrThrow(URLsMatchStr(pattern, image))

describe("matchImages (spec 001 CredentialProvider matching rules)", () => {
  it("matches the spec's kinds of entries: plain registry, registry with path, port", () => {
    expect(match("123456789.dkr.ecr.us-east-1.amazonaws.com", "123456789.dkr.ecr.us-east-1.amazonaws.com/app:1")).toBe(true)
    expect(match("gcr.io", "gcr.io/project/image:tag")).toBe(true)
    expect(match("registry.io:8080/path", "registry.io:8080/path/image")).toBe(true)
    expect(match("registry.io:8080/path", "registry.io:8080/other/image")).toBe(false)
  })

  it("needs the same number of domain parts: a glob matches exactly one segment", () => {
    expect(match("*.azurecr.io", "myregistry.azurecr.io/app")).toBe(true)
    expect(match("*.azurecr.io", "azurecr.io/app")).toBe(false)
    expect(match("*.azurecr.io", "a.b.azurecr.io/app")).toBe(false)
    expect(match("*.*.registry.io", "a.b.registry.io")).toBe(true)
    expect(match("*.*.registry.io", "a.registry.io")).toBe(false)
  })

  it("supports partial subdomain globs, ? and classes, per label", () => {
    expect(match("prod-*.example.io", "prod-eu.example.io/x")).toBe(true)
    expect(match("prod-*.example.io", "dev-eu.example.io/x")).toBe(false)
    // `?` starts the URL's query in upstream's parser, so the pattern's host is only `reg-`: it never matches
    expect(parseSchemelessURL("reg-?.example.io")).toStrictEqual(Either.right({ host: "reg-", path: "" }))
    expect(match("reg-?.example.io", "reg-1.example.io")).toBe(false)
    expect(match("reg-[0-9].example.io", "reg-7.example.io")).toBe(true)
    expect(match("reg-[0-9].example.io", "reg-x.example.io")).toBe(false)
    // a negated class needs `^`, which Go's URL parser refuses in a host name
    expect(URLsMatchStr("reg-[^0-9].example.io", "reg-x.example.io")).toStrictEqual(Either.left('parse "https://reg-[^0-9].example.io": invalid character "^" in host name'))
  })

  it("allows a glob on the top-level domain", () => {
    expect(match("registry.*", "registry.io/app")).toBe(true)
    expect(match("registry.*", "registry.com/app")).toBe(true)
    expect(match("registry.*", "registry.co.uk/app")).toBe(false)
  })

  it("requires equal ports: a pattern without port does not match an image with one, and back", () => {
    expect(match("registry.io", "registry.io:5000/app")).toBe(false)
    expect(match("registry.io:5000", "registry.io/app")).toBe(false)
    expect(match("registry.io:5000", "registry.io:5000/app")).toBe(true)
    expect(match("registry.io:5000", "registry.io:5001/app")).toBe(false)
    expect(match("*.io:5000", "registry.io:5000/app")).toBe(true)
  })

  it("treats the pattern's path as a plain prefix of the image's path", () => {
    expect(match("registry.io/team", "registry.io/team/app")).toBe(true)
    expect(match("registry.io/team", "registry.io/teammate/app")).toBe(true)
    expect(match("registry.io/team", "registry.io/other/app")).toBe(false)
    expect(match("registry.io/te*", "registry.io/team/app")).toBe(false)
  })

  it("a bad glob is an error, and makes no provider apply", () => {
    expect(URLsMatchStr("reg-[.example.io", "reg-a.example.io")).toStrictEqual(Either.left("syntax error in pattern"))
    expect(matchesAny(["reg-[.example.io", "*.example.io"], "reg-a.example.io")).toBe(true)
    expect(matchesAny(["reg-[.example.io"], "reg-a.example.io")).toBe(false)
  })

  it("parses as Go's url.Parse does, with its error texts", () => {
    expect(parseSchemelessURL("registry.io:5000/a/b:tag")).toStrictEqual(Either.right({ host: "registry.io:5000", path: "/a/b:tag" }))
    expect(parseSchemelessURL("a b.io")).toStrictEqual(Either.left('parse "https://a b.io": invalid character " " in host name'))
    expect(parseSchemelessURL("registry.io:port")).toStrictEqual(Either.left('parse "https://registry.io:port": invalid port ":port" after host'))
    expect(parseSchemelessURL("[::1")).toStrictEqual(Either.left(`parse "https://[::1": missing ']' in host`))
    expect(parseSchemelessURL("reg\tistry.io")).toStrictEqual(Either.left('parse "https://reg\\tistry.io": net/url: invalid control character in URL'))
    expect(parseSchemelessURL("registry.io/%zz")).toStrictEqual(Either.left('parse "https://registry.io/%zz": invalid URL escape "%zz"'))
    // Both texts are Go's %q: a no-break space is `\u00a0`, as strconv.Quote writes it.
    expect(parseSchemelessURL("registry.io:\u00a0")).toStrictEqual(
      Either.left(String.raw`parse "https://registry.io:\u00a0": invalid port ":\u00a0" after host`)
    )
    expect(splitURL(Either.getOrThrow(parseSchemelessURL("[::1]:5000/x")))).toStrictEqual({ parts: ["::1"], port: "5000" })
  })

  it("Go filepath.Match: * never crosses /, escapes, trailing checks", () => {
    expect(globMatch("a*", "abc")).toStrictEqual(Either.right(true))
    expect(globMatch("a*c", "abxc")).toStrictEqual(Either.right(true))
    expect(globMatch("a\\*", "a*")).toStrictEqual(Either.right(true))
    expect(globMatch("a\\*", "ab")).toStrictEqual(Either.right(false))
    expect(globMatch("*", "a/b")).toStrictEqual(Either.right(false))
    expect(globMatch("a[", "b")).toStrictEqual(Either.left("syntax error in pattern"))
  })

  it("registryOf: the text before the first slash", () => {
    expect(registryOf("registry.io:5000/a/b")).toBe("registry.io:5000")
    expect(registryOf("nginx")).toBe("nginx")
  })
})
