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

describe("ServiceAccountTokens bound to a pod", () => {
  it("valid while the pod is there with its uid; dead once it is gone, recreated, or deleted more than the leeway ago", () => {
    const tokens = new ServiceAccountTokens()
    const account = { namespace: "rot", name: "loadgen", uid: "u1" }
    const uid = () => "u1"
    const token = tokens.issue(account, [], 3600, 5_000, { kind: "Pod", name: "p", uid: "pod-1" }).token
    const verify = (pod: { uid: string; deletionTimestampMs?: number } | undefined, now = 5_000) => tokens.verify(token, now, uid, (kind, ns, name) => (kind === "Pod" && ns === "rot" && name === "p" ? pod : undefined))
    expect(verify({ uid: "pod-1" })).toEqual(
      Either.right({
        name: "system:serviceaccount:rot:loadgen",
        uid: "u1",
        groups: ["system:serviceaccounts", "system:serviceaccounts:rot"],
        extra: { "authentication.platform.io/pod-name": ["p"], "authentication.platform.io/pod-uid": ["pod-1"] }
      })
    )
    expect(verify(undefined)).toEqual(Either.left("Token has been invalidated"))
    expect(verify({ uid: "pod-2" })).toEqual(Either.left("Token has been invalidated"))
    // a pod being deleted gracefully keeps its token for go-jose's minute of leeway
    expect(Either.isRight(verify({ uid: "pod-1", deletionTimestampMs: 5_000 }, 65_000))).toBe(true)
    expect(verify({ uid: "pod-1", deletionTimestampMs: 5_000 }, 65_001)).toEqual(Either.left("Token has been invalidated"))
    // an unbound token names no pod
    const unbound = tokens.issue(account, [], 3600, 5_000).token
    expect(tokens.verify(unbound, 5_000, uid, () => undefined)).toEqual(Either.right({ name: "system:serviceaccount:rot:loadgen", uid: "u1", groups: ["system:serviceaccounts", "system:serviceaccounts:rot"] }))
  })
})
