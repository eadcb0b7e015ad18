/**
 * `ControllerExpectations` (upstream `pkg/controller/controller_utils.go`): the creates and deletes a controller
 * made and has not yet seen in its informer. While some are outstanding the controller does not count pods again
 * (it would create a second batch for pods already on their way); they expire after 5 minutes
 * (`ExpectationsTimeout`), so a lost watch event cannot stop a controller for good.
 */
export const expectationsTimeoutMs = 5 * 60_000

interface Expected {
  add: number
  del: number
  readonly at: number
}

export class Expectations {
  private readonly byKey = new Map<string, Expected>()

  /** Whether the controller may count and act again (`SatisfiedExpectations`). */
  satisfied(key: string, now: number): boolean {
    const e = this.byKey.get(key)
    if (e === undefined) return true
    return (e.add <= 0 && e.del <= 0) || now - e.at > expectationsTimeoutMs
  }

  expect(key: string, add: number, del: number, now: number): void {
    this.byKey.set(key, { add, del, at: now })
  }

  creationObserved(key: string): void {
    const e = this.byKey.get(key)
    if (e) e.add--
  }

  deletionObserved(key: string): void {
    const e = this.byKey.get(key)
    if (e) e.del--
  }

  delete(key: string): void {
    this.byKey.delete(key)
  }
}
