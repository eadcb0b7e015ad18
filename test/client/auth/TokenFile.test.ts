/** A token file re-read as client-go's cached file token source does: every 50 s, not on a 401. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { staticToken } from "../../../src/client/auth/Credential.js"
import { tokenFileSource } from "../../../src/client/auth/TokenFile.js"

const dir = mkdtempSync(path.join(os.tmpdir(), "clustersim-tokenfile-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("token file", () => {
  it.effect("read at first use, trimmed; re-read once the minute less the 10 s leeway is over", () =>
    Effect.gen(function* () {
      const file = path.join(dir, "rotating")
      writeFileSync(file, "one\n")
      const source = tokenFileSource({ path: file })
      expect(yield* source.current).toEqual({ token: "one" })
      writeFileSync(file, "two")
      yield* TestClock.adjust("49999 millis")
      expect(yield* source.current).toEqual({ token: "one" })
      // a 401 does not force a re-read (client-go's kubeconfig transport never resets the file source)
      yield* source.unauthorized({ token: "one" })
      expect(yield* source.current).toEqual({ token: "one" })
      yield* TestClock.adjust("1 millis")
      expect(yield* source.current).toEqual({ token: "two" })
      expect(source.loads()).toBe(2)
    }))

  it.effect("a failed re-read keeps the token held; with nothing held the inline token, else client-go's error", () =>
    Effect.gen(function* () {
      const file = path.join(dir, "vanishing")
      writeFileSync(file, "held")
      const source = tokenFileSource({ path: file })
      expect(yield* source.current).toEqual({ token: "held" })
      rmSync(file)
      yield* TestClock.adjust("1 minute")
      expect(yield* source.current).toEqual({ token: "held" })
      expect(yield* tokenFileSource({ path: file, fallback: "inline" }).current).toEqual({ token: "inline" })
      expect((yield* Effect.flip(tokenFileSource({ path: file }).current)).message).toMatch(new RegExp(`^failed to read token file "${file}": ENOENT`))
      writeFileSync(file, "  \n")
      expect((yield* Effect.flip(tokenFileSource({ path: file }).current)).message).toBe(`read empty token from file "${file}"`)
    }))

  it.effect("expireHeld: the stale token until the next periodic re-read", () =>
    Effect.gen(function* () {
      const file = path.join(dir, "steady")
      writeFileSync(file, "good")
      const source = tokenFileSource({ path: file })
      yield* source.current
      yield* TestClock.adjust("20 seconds")
      yield* source.expireHeld("stale")
      expect(yield* source.current).toEqual({ token: "stale" })
      yield* TestClock.adjust("30 seconds")
      expect(yield* source.current).toEqual({ token: "good" })
    }))

  it.effect("a static token never recovers from expireHeld", () =>
    Effect.gen(function* () {
      const source = staticToken("t")
      yield* source.expireHeld("stale")
      yield* source.unauthorized({ token: "stale" })
      yield* TestClock.adjust("1 hour")
      expect(yield* source.current).toEqual({ token: "stale" })
    }))
})
