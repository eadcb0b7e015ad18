import { Data } from "effect"

/** A leader elector built with inconsistent timings (client-go `NewLeaderElector`'s checks). */
export class LeaderElectionConfigError extends Data.TaggedError("LeaderElectionConfigError")<{ readonly message: string }> {}
