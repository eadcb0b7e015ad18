/** Audit events for the replay's tests: upstream's field names and formats (apis/audit/v1/types.go). */
import { microTimeOfMs as formatMicroTime } from "../../src/api/audit/EventTime.js"

export const t0 = Date.parse("2026-01-01T10:00:00Z")

export interface EventSpec {
  readonly at: number
  readonly verb: string
  readonly uri: string
  readonly code?: number
  readonly stage?: "RequestReceived" | "ResponseStarted" | "ResponseComplete" | "Panic"
  readonly id?: string
  readonly latencyMs?: number
  readonly ref?: Record<string, string>
  readonly requestObject?: unknown
  readonly responseObject?: unknown
  readonly user?: string
  readonly groups?: ReadonlyArray<string>
  readonly level?: string
}

let n = 0

/** One event, `at` ms after t0. */
export const auditEvent = (s: EventSpec): Record<string, unknown> => ({
  kind: "Event",
  apiVersion: "audit.k8s.io/v1",
  level: s.level ?? "RequestResponse",
  auditID: s.id ?? `a-${++n}`,
  stage: s.stage ?? "ResponseComplete",
  requestURI: s.uri,
  verb: s.verb,
  user: { username: s.user ?? "admin", groups: s.groups ?? ["system:masters", "system:authenticated"] },
  sourceIPs: ["127.0.0.1"],
  userAgent: "kubectl/v1.30.0",
  ...(s.ref ? { objectRef: s.ref } : {}),
  responseStatus: { metadata: {}, code: s.code ?? 200 },
  // as upstream's levels keep them: the request body from Request, the response body at RequestResponse
  ...(s.requestObject !== undefined && (s.level ?? "RequestResponse") !== "Metadata" ? { requestObject: s.requestObject } : {}),
  ...(s.responseObject !== undefined && (s.level ?? "RequestResponse") === "RequestResponse" ? { responseObject: s.responseObject } : {}),
  requestReceivedTimestamp: formatMicroTime(t0 + s.at),
  stageTimestamp: formatMicroTime(t0 + s.at + (s.latencyMs ?? 2))
})

export const lines = (events: ReadonlyArray<unknown>): string => events.map((e) => (typeof e === "string" ? e : JSON.stringify(e))).join("\n") + "\n"
