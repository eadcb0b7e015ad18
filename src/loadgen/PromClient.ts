/**
 * prom-client, loaded when the first metric is made. The modelled metrics (docs/metrics.md) come with every
 * simulated cluster's modules but are made only for a run that writes or serves them; loading prom-client and its
 * dependencies cost every other process start ~30 ms of CPU (issue 39). Synchronous (`require`: prom-client is a
 * CommonJS package) so the metrics' constructors stay as they are.
 */
import { createRequire } from "node:module"
import type * as PromClientModule from "prom-client"

const require = createRequire(import.meta.url)

/** The prom-client module (loaded once; `require` keeps it). */
export const promClient = (): typeof PromClientModule => require("prom-client") as typeof PromClientModule
