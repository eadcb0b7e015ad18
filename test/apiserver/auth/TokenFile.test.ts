import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { parseTokenFile } from "../../../simulator/apiserver/auth/TokenFile.js"

describe("parseTokenFile (upstream tokenfile.NewCSV)", () => {
  it("token,user,uid and the quoted group list; empty lines and empty tokens skipped; the last duplicate wins", () => {
    const text = 'tok1,alice,u1,"devs,ops"\n\n,nobody,u0\ntok2,bob,u2\ntok1,alice2,u3\n'
    const tokens = Either.getOrThrow(parseTokenFile("tokens.csv", text))
    expect([...tokens.entries()]).toEqual([
      ["tok1", { name: "alice2", uid: "u3", groups: [] }],
      ["tok2", { name: "bob", uid: "u2", groups: [] }]
    ])
    expect(Either.getOrThrow(parseTokenFile("t.csv", 'a,b,c,"g1,g2",extra')).get("a")).toEqual({ name: "b", uid: "c", groups: ["g1", "g2"] })
  })

  it("fewer than three columns and malformed quoting are errors naming the file", () => {
    expect(parseTokenFile("tokens.csv", "tok,alice\n")).toEqual(Either.left("token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2"))
    expect(parseTokenFile("tokens.csv", 'ok,a,b\nt,"x,u\n')).toEqual(Either.left('tokens.csv:2: parse error on line 2, column 7: extraneous or missing " in quoted-field'))
  })
})
