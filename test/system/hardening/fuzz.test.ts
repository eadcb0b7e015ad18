/** The fuzz check (test/support/fuzz.ts) at the 10,000 requests issue 14 asks for; the fast tier sends 1,000. */
import { describe, it } from "@effect/vitest"
import { fuzzChecked } from "../../support/fuzz.js"

/** ~36 s on 2 cores at a load average of 6 (the test allows 120 s). */
const requests = 10_000

describe("fuzz", () => {
  it.live(`${requests} seeded requests: no crash, hang, unexpected 5xx or non-Status error`, () => fuzzChecked(requests), 120_000)
})
