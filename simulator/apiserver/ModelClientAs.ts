/**
 * `ModelClientAs`: the simulation's modelled client (`ServiceTime.modelledClient`) with its requests booked with API
 * Priority and Fairness as another identity's — a workload's kubelet-style clients as `system:node:<name>` in
 * `system:nodes`, one flow each, where the simulation's own user would put them all in one flow. Only the modelled
 * booking changes: the server sees the same requests (authorization is `ClientAs`'s, `auth/ComponentIdentities.ts`).
 * Present when the simulation models service times (a cluster section).
 */
import { Context } from "effect"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import type { ModelIdentity } from "./ModelRequests.js"

export class ModelClientAs extends Context.Tag("clustersim/ModelClientAs")<ModelClientAs, (identity: ModelIdentity) => ApiClientService>() {}
