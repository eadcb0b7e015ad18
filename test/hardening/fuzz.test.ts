/** The fuzz check (test/support/fuzz.ts) in the fast tier: 1,000 requests of the seed the system tier sends 10,000 of. */
import { describe, it } from "@effect/vitest"
import { fuzzChecked } from "../support/fuzz.js"

const requests = 1_000

describe("fuzz", () => {
  it.live(`${requests} seeded requests: no crash, hang, unexpected 5xx or non-Status error`, () => fuzzChecked(requests))
})
