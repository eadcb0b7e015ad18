/**
 * Values recorded into an HDR histogram as runs of equal values, each run counted and recorded once
 * (`recordValueWithCount`): the same counts, minimum, maximum and total as recording every value. On the virtual
 * clock a lease renewal's latency is one value for almost every renewal (the model's time of a write to an idle
 * server, 2.004 ms in the 5,000-node hour), where hdr's `recordValue` cost ~2.6 % of the steady state
 * (docs/benchmarks.md "Where a lease renewal's CPU goes").
 */
import type { Histogram } from "../../src/loadgen/LatencyRecorder.js"

export class EqualRuns {
  private value = 0
  private count = 0

  constructor(private readonly into: Histogram) {}

  /** Records `value` (an integer the histogram takes). */
  record(value: number): void {
    if (value === this.value) {
      this.count++
      return
    }
    this.flush()
    this.value = value
    this.count = 1
  }

  /** The histogram with every value recorded so far. */
  get histogram(): Histogram {
    this.flush()
    return this.into
  }

  private flush(): void {
    if (this.count === 0) return
    this.into.recordValueWithCount(this.value, this.count)
    this.count = 0
  }
}
