/** Runs an effect against a fresh simulated API server in virtual time (the kernel's Simulation). */
import { Effect, Layer, type Scope } from "effect"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import * as Simulation from "../../simulator/kernel/Simulation.js"
import type { SeededRandom } from "../../simulator/kernel/SeededRandom.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import * as InProcessClient from "../../simulator/apiserver/InProcessClient.js"

export const runSim = <A, E>(
  effect: Effect.Effect<A, E, ApiClient | ApiServer | SeededRandom | Scope.Scope>,
  options: { readonly seed?: number; readonly startMillis?: number; readonly maxDuration?: string; readonly maxStepsPerInstant?: number } = {}
): A => {
  const sim = Simulation.make({ seed: options.seed ?? 1, startMillis: options.startMillis ?? 0, maxStepsPerInstant: options.maxStepsPerInstant })
  const layer = Layer.provideMerge(InProcessClient.layer, ApiServer.layer({ seed: options.seed ?? 1 }))
  const exit = sim.run(Effect.scoped(Effect.provide(effect, layer)), { maxDuration: (options.maxDuration ?? "2 hours") as never })
  sim.interruptAll()
  if (!exit) throw new Error("simulation did not finish within maxDuration")
  if (exit._tag === "Failure") throw new Error(String(exit.cause))
  return exit.value
}
