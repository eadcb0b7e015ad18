import { describe, expect, it } from "@effect/vitest"
import { defaultPullPolicy, ImageManager, imageEventMessage, type ImageEvent, type PullFunction } from "../../../simulator/nodeagent/images/ImageManager.js"
import { NodeImages } from "../../../simulator/nodeagent/images/NodeImages.js"

const Mi = 2 ** 20
const pod = { key: "default/p", uid: "uid-1" }
const image = "registry.example/app:1"

const make = (pull: PullFunction, settings = { serializeImagePulls: true, registryPullQPS: 0, registryBurst: 0 }) => {
  const events: Array<ImageEvent & { message: string; pod: string }> = []
  const disk = new NodeImages({ capacityBytes: 100_000 * Mi, highThresholdPercent: 85, lowThresholdPercent: 80, minimumGCAgeMs: 120_000 })
  const manager = new ImageManager(settings, disk, () => [{ digest: "l", size: 10 * Mi }], pull, (p, e) => events.push({ ...e, message: imageEventMessage(e), pod: p }), () => new Set())
  return { manager, events, disk }
}

describe("ImageManager.ensureImage (EnsureImageExists)", () => {
  it("default pull policy: Always for :latest or no tag, else IfNotPresent", () => {
    expect(defaultPullPolicy("r.io/app")).toBe("Always")
    expect(defaultPullPolicy("r.io/app:latest")).toBe("Always")
    expect(defaultPullPolicy("r.io:5000/app")).toBe("Always")
    expect(defaultPullPolicy("r.io:5000/app:1")).toBe("IfNotPresent")
    expect(defaultPullPolicy("r.io/app@sha256:abc")).toBe("IfNotPresent")
  })

  it("pulls once: Pulling, then Pulled with the pull time and the time including waiting; then already present", () => {
    const { manager, events } = make((_, start) => ({ end: start + 2_500 }))
    expect(manager.ensureImage(pod, image, "IfNotPresent", 1_000)).toStrictEqual({ kind: "ready", at: 3_500, pulled: true })
    expect(manager.ensureImage(pod, image, "IfNotPresent", 4_000)).toStrictEqual({ kind: "ready", at: 4_000, pulled: false })
    expect(events.map((e) => [e.t, e.type, e.reason, e.message])).toStrictEqual([
      [1_000, "Normal", "Pulling", `Pulling image "${image}"`],
      [3_500, "Normal", "Pulled", `Successfully pulled image "${image}" in 2.5s (2.5s including waiting)`],
      [4_000, "Normal", "Pulled", `Container image "${image}" already present on machine`]
    ])
  })

  it("Never: a missing image is ErrImageNeverPull", () => {
    const { manager, events } = make(() => ({ end: 0 }))
    const out = manager.ensureImage(pod, image, "Never", 0)
    expect(out).toStrictEqual({ kind: "failed", at: 0, reason: "ErrImageNeverPull", message: `Container image "${image}" is not present with pull policy of Never` })
    expect(events.map((e) => e.reason)).toStrictEqual(["ErrImageNeverPull"])
  })

  it("a failed pull: Failed + ErrImagePull, then BackOff + ImagePullBackOff for 10 s, then 20 s after the next failure", () => {
    const { manager, events } = make((_, start) => ({ end: start + 100, error: "boom" }))
    expect(manager.ensureImage(pod, image, "IfNotPresent", 0)).toStrictEqual({ kind: "failed", at: 100, reason: "ErrImagePull", message: "boom" })
    expect(manager.ensureImage(pod, image, "IfNotPresent", 10_099)).toStrictEqual({
      kind: "failed",
      at: 10_099,
      reason: "ImagePullBackOff",
      message: `Back-off pulling image "${image}"`
    })
    expect(manager.ensureImage(pod, image, "IfNotPresent", 10_100).kind === "failed").toBe(true) // pulls again: fails at 10 200
    expect(manager.ensureImage(pod, image, "IfNotPresent", 30_199)).toMatchObject({ reason: "ImagePullBackOff" })
    expect(manager.ensureImage(pod, image, "IfNotPresent", 30_200)).toMatchObject({ reason: "ErrImagePull" })
    expect(events.map((e) => `${e.t} ${e.reason}`)).toStrictEqual([
      "0 Pulling",
      "100 Failed",
      "10099 BackOff",
      "10100 Pulling",
      "10200 Failed",
      "30199 BackOff",
      "30200 Pulling",
      "30300 Failed"
    ])
    expect(events[1]!.message).toBe(`Failed to pull image "${image}": boom`)
    expect(events[1]!.type).toBe("Warning")
  })

  it("serializeImagePulls: one pull at a time, in order; the waiting shows in the Pulled message", () => {
    const { manager, events } = make((_, start) => ({ end: start + 1_000 }))
    expect(manager.ensureImage(pod, "r.io/a:1", "IfNotPresent", 0)).toMatchObject({ at: 1_000 })
    expect(manager.ensureImage({ key: "default/q", uid: "uid-2" }, "r.io/b:1", "IfNotPresent", 200)).toMatchObject({ at: 2_000 })
    expect(events.at(-1)!.message).toBe(`Successfully pulled image "r.io/b:1" in 1s (1.8s including waiting)`)
  })

  it("parallel pulls when serializeImagePulls is false", () => {
    const { manager } = make((_, start) => ({ end: start + 1_000 }), { serializeImagePulls: false, registryPullQPS: 0, registryBurst: 0 })
    manager.ensureImage(pod, "r.io/a:1", "IfNotPresent", 0)
    expect(manager.ensureImage(pod, "r.io/b:1", "IfNotPresent", 200)).toMatchObject({ at: 1_200 })
  })

  it("registryPullQPS / registryBurst: pulls over the budget fail at once with `pull QPS exceeded`", () => {
    let pulls = 0
    const { manager, events } = make((_, start) => (pulls++, { end: start }), { serializeImagePulls: false, registryPullQPS: 1, registryBurst: 2 })
    const outcomes = ["a", "b", "c"].map((n, i) => manager.ensureImage({ key: `default/${n}`, uid: n }, `r.io/${n}:1`, "IfNotPresent", i))
    expect(outcomes.map((o) => o.kind)).toStrictEqual(["ready", "ready", "failed"])
    expect(outcomes[2]).toStrictEqual({ kind: "failed", at: 2, reason: "ErrImagePull", message: "pull QPS exceeded" })
    expect(events.at(-1)!.message).toBe(`Failed to pull image "r.io/c:1": pull QPS exceeded`)
    expect(pulls).toBe(2)
    // a token back after 1 s (virtual), and the pod's back-off (10 s) over
    expect(manager.ensureImage({ key: "default/c", uid: "c" }, "r.io/c:1", "IfNotPresent", 10_002)).toMatchObject({ kind: "ready" })
  })
})

describe("a pod whose image another pod is pulling", () => {
  it("waits for that pull and counts as a pod with a pull", () => {
    const { manager } = make((_, start) => ({ end: start + 3_000 }))
    manager.ensureImage(pod, image, "IfNotPresent", 0)
    expect(manager.ensureImage({ key: "default/q", uid: "uid-2" }, image, "IfNotPresent", 1_000)).toStrictEqual({ kind: "ready", at: 3_000, pulled: true })
    expect(manager.ensureImage({ key: "default/r", uid: "uid-3" }, image, "IfNotPresent", 5_000)).toStrictEqual({ kind: "ready", at: 5_000, pulled: false })
  })
})
