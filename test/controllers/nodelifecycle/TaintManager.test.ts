/** The taint manager's delays (upstream `getMinTolerationTime`): the smallest tolerationSeconds of matching tolerations. */
import { describe, expect, it } from "@effect/vitest"
import { evictionDelayMs } from "../../../simulator/controllers/nodelifecycle/TaintManager.js"

const unreachable = { key: "node.platform.io/unreachable", effect: "NoExecute" }
const notReady = { key: "node.platform.io/not-ready", effect: "NoExecute" }

describe("taint manager delays", () => {
  it("uses the smallest tolerationSeconds of the tolerations that match", () => {
    const tolerations = [
      { key: "node.platform.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      { operator: "Exists", tolerationSeconds: 600 }
    ]
    expect(evictionDelayMs(tolerations, [unreachable])).toBe(300_000)
  })

  it("deletes at once without a matching toleration and never without tolerationSeconds", () => {
    expect(evictionDelayMs([{ key: "node.platform.io/unreachable", operator: "Exists", effect: "NoExecute" }], [notReady])).toBe(0)
    expect(evictionDelayMs([{ operator: "Exists" }], [unreachable])).toBeUndefined()
    expect(evictionDelayMs([{ key: "node.platform.io/unreachable", operator: "Exists", tolerationSeconds: -5 }], [unreachable])).toBe(0)
  })

  it("every taint must be tolerated: the untolerated one deletes at once", () => {
    const tolerations = [{ key: "node.platform.io/unreachable", operator: "Exists", tolerationSeconds: 300 }]
    expect(evictionDelayMs(tolerations, [unreachable, notReady])).toBe(0)
    expect(evictionDelayMs(tolerations.concat([{ key: "node.platform.io/not-ready", operator: "Exists", tolerationSeconds: 60 }]), [unreachable, notReady])).toBe(60_000)
  })
})
