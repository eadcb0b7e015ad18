/**
 * A name for what a simulated fiber is (a node-agent shard, the node lifecycle controller, the load phases…), so
 * that the driver can say *what* spins when virtual time stops moving (`Simulation.ts`'s livelock). Forked fibers
 * inherit their parent's label; the label changes nothing else.
 */
import { Effect, FiberRef } from "effect"
import type * as Fiber from "effect/Fiber"

const label: FiberRef.FiberRef<string | undefined> = FiberRef.unsafeMake<string | undefined>(undefined)

/** Runs `effect` (and every fiber it forks) under the name `name`. */
export const labelled =
  (name: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.locally(effect, label, name)

/** The fiber's label, if it runs under one. */
export const labelOf = (fiber: Fiber.RuntimeFiber<unknown, unknown>): string | undefined => fiber.getFiberRef(label)
