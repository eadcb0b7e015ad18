/** The server-side token expiry (`expire-tokens` side server): issued tokens stop working, new ones work at once. */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { ServiceAccountTokens } from "../../../simulator/apiserver/auth/ServiceAccountTokens.js"

describe("ServiceAccountTokens.expireIssued", () => {
  it("expires every token issued so far, counts them, and a token issued in the same millisecond after works", () => {
    const tokens = new ServiceAccountTokens()
    const account = { namespace: "rot", name: "loadgen", uid: "u1" }
    const uid = () => "u1"
    const a = tokens.issue(account, [], 3600, 5_050).token
    const b = tokens.issue(account, [], 3600, 5_050).token
    expect(tokens.expireIssued()).toBe(2)
    const c = tokens.issue(account, [], 3600, 5_050).token
    expect(tokens.verify(a, 5_050, uid)).toEqual(Either.left("service account token has expired"))
    expect(tokens.verify(b, 5_050, uid)).toEqual(Either.left("service account token has expired"))
    expect(Either.isRight(tokens.verify(c, 5_050, uid))).toBe(true)
    expect(tokens.expireIssued()).toBe(1)
    expect(tokens.expireIssued()).toBe(0)
  })
})
