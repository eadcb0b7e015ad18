/**
 * Shipped load-only scenarios on the real clock against the in-process server, with expiring credentials and
 * continue tokens: the shape recorded in test/fixtures/shipped-scenarios.json (scenario, target, series keys,
 * actions, thresholds judged), what a refactoring of the run pipeline must keep. About 60 real seconds; the other
 * shipped runs: ShippedArtifacts.test.ts.
 */
import { describeShipped } from "./shippedCases.js"

describeShipped(["scenarios/compare-list.yaml", "scenarios/expired-continue-token.yaml", "scenarios/expired-token.yaml"], "load-only")
