/** The embedded server's process (app/cli/ServerProcess.ts) that refuses to start: the run reports the child's own one-line reason. */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option } from "effect"
import { startServerProcess } from "../../../app/cli/ServerProcess.js"

describe("the embedded server's process", () => {
  it("the embedded server's process that refuses to start: the run reports its one-line reason", async () => {
    const exit = await Effect.runPromiseExit(Effect.scoped(startServerProcess({ seed: 1, historyWindowMs: -1 })))
    expect(Exit.isFailure(exit)).toBe(true)
    const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
    const message = Option.isSome(failure) ? failure.value.message : ""
    expect(message).toBe('the embedded server exited before listening (exit 2): --history-window: must not be negative, got "-1ms"')
  }, 30_000)
})
