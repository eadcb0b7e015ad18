/** The pure parts of the scale and log subresources: the selector string, the simulated log lines, the options. */
import { describe, expect, it } from "vitest"
import { Either } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { containerStopped, fixedNanoTime, logLines, podLogOptions } from "../../simulator/apiserver/PodLog.js"
import { scaleOf, selectorString } from "../../simulator/apiserver/Scale.js"

describe("selectorString (metav1.LabelSelectorAsSelector(…).String())", () => {
  it("sorts requirements by key and In/NotIn values; Exists and DoesNotExist bare; none is empty", () => {
    expect(
      selectorString({
        matchLabels: { z: "1", a: "2" },
        matchExpressions: [
          { key: "m", operator: "NotIn", values: ["y", "x"] },
          { key: "e", operator: "Exists" },
          { key: "g", operator: "DoesNotExist" }
        ]
      })
    ).toBe("a=2,e,!g,m notin (x,y),z=1")
    expect(selectorString(undefined)).toBe("")
    expect(selectorString({})).toBe("")
  })

  it("a Scale of a Deployment without replicas: spec empty (omitempty), status.replicas 0 kept", () => {
    const scale = scaleOf({ metadata: { name: "d", namespace: "ns", uid: "u", resourceVersion: "7", creationTimestamp: "t" }, spec: {} } as KObject)
    expect(scale).toMatchObject({ spec: {}, status: { replicas: 0 }, metadata: { name: "d", uid: "u", resourceVersion: "7" } })
  })
})

describe("the simulated container log", () => {
  const pod = (state: Record<string, unknown>, lastState: Record<string, unknown> = {}) =>
    ({
      metadata: { name: "p", namespace: "ns" },
      spec: { nodeName: "n", containers: [{ name: "c", image: "img" }] },
      status: {
        conditions: [{ type: "PodScheduled", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z" }],
        containerStatuses: [{ name: "c", image: "img", ready: false, state, lastState }]
      }
    }) as unknown as KObject

  it("a stopped container ends with its exit; previous reads the last terminated instance", () => {
    const stopped = pod({ terminated: { startedAt: "2026-01-01T00:00:01Z", finishedAt: "2026-01-01T00:00:03Z", exitCode: 137, reason: "Error" } })
    expect(logLines(stopped, "c", false).map((l) => l.text).at(-1)).toBe("Stopped container c (exit code 137, Error)")
    expect(containerStopped(stopped, "c")).toBe(true)
    const restarted = pod({ running: { startedAt: "2026-01-01T00:01:00Z" } }, { terminated: { startedAt: "2026-01-01T00:00:01Z", finishedAt: "2026-01-01T00:00:03Z", exitCode: 1 } })
    expect(logLines(restarted, "c", true).map((l) => l.text)).toEqual([
      'Successfully pulled image "img"',
      "Created container c",
      "Started container c",
      "Stopped container c (exit code 1)"
    ])
  })

  it("timestamps have nine fractional digits, as the kubelet's RFC3339NanoFixed", () => {
    expect(fixedNanoTime(Date.parse("2026-01-01T00:00:01.5Z"))).toBe("2026-01-01T00:00:01.500000000Z")
  })

  it("options: sinceSeconds with sinceTime, limitBytes 0 and sinceSeconds 0 are ValidatePodLogOptions' 422; a bad integer 400", () => {
    const q = (s: string) => podLogOptions("p", new URLSearchParams(s))
    const message = (s: string) => Either.match(q(s), { onLeft: (e) => `${e.code} ${e.message}`, onRight: () => "ok" })
    expect(message("sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z")).toBe('422 PodLogOptions "p" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified')
    expect(message("limitBytes=0")).toBe('422 PodLogOptions "p" is invalid: limitBytes: Invalid value: 0: must be greater than 0')
    expect(message("sinceSeconds=0")).toBe('422 PodLogOptions "p" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0')
    expect(message("tailLines=x")).toBe('400 strconv.ParseInt: parsing "x": invalid syntax')
    expect(message("tailLines=-1&limitBytes=0")).toBe(
      '422 PodLogOptions "p" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0]'
    )
    expect(message("follow=true&tailLines=3")).toBe("ok")
  })
})
