import { Data } from "effect"

/** A leader elector built with inconsistent timings (the `NewLeaderElector` checks of reference §5). */
export class LeaderElectionConfigError extends Data.TaggedError("LeaderElectionConfigError")<{ readonly message: string }> {}
