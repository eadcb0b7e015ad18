/**
 * An Effect `Scheduler` that never hops to the event loop: every task a fiber schedules (a resume after a sleep,
 * a yield, an interrupt signal) goes into a run queue that the driver drains synchronously.
 */
import type * as Fiber from "effect/Fiber"
import * as Scheduler from "effect/Scheduler"

type Task = Scheduler.Task

/** FIFO that reuses its array: a head index instead of `shift()`. */
class TaskQueue {
  private items: Array<Task> = []
  private head = 0

  get length(): number {
    return this.items.length - this.head
  }

  push(task: Task): void {
    this.items.push(task)
  }

  shift(): Task {
    const task = this.items[this.head]!
    this.head++
    if (this.head === this.items.length) {
      this.items.length = 0
      this.head = 0
    } else if (this.head >= 4096 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head)
      this.head = 0
    }
    return task
  }
}

export class VirtualScheduler implements Scheduler.Scheduler {
  /** Default-priority queue; the hot path. */
  private readonly normal = new TaskQueue()
  /** Other priorities, ascending; lower numbers run first, as in Effect's `PriorityBuckets`. */
  private readonly others: Array<[number, TaskQueue]> = []
  private queued = 0

  /** Tasks currently waiting in the run queue. */
  get size(): number {
    return this.queued
  }

  /** Tasks scheduled while `runInline` runs its function: they run right after it instead. */
  private inlined: Array<Task> | undefined = undefined

  scheduleTask(task: Task, priority: number, _fiber?: Fiber.RuntimeFiber<unknown, unknown>): void {
    if (this.inlined !== undefined) return void this.inlined.push(task)
    this.queued++
    if (priority === 0) {
      this.normal.push(task)
      return
    }
    const others = this.others
    let i = 0
    while (i < others.length && others[i]![0] < priority) i++
    if (i < others.length && others[i]![0] === priority) {
      others[i]![1].push(task)
    } else {
      const queue = new TaskQueue()
      queue.push(task)
      others.splice(i, 0, [priority, queue])
    }
  }

  /**
   * Yields forced by Effect's operation budget (a fiber that ran `currentMaxOpsBeforeYield`, 2048, operations without
   * suspending) since `resetBudgetYields`, and by which fiber: the driver's measure of busy work at one instant.
   */
  budgetYields = 0
  private readonly budgetYieldsOf = new Map<Fiber.RuntimeFiber<unknown, unknown>, number>()

  shouldYield(fiber: Fiber.RuntimeFiber<unknown, unknown>): number | false {
    const priority = Scheduler.defaultShouldYield(fiber)
    if (priority !== false) {
      this.budgetYields++
      this.budgetYieldsOf.set(fiber, (this.budgetYieldsOf.get(fiber) ?? 0) + 1)
    }
    return priority
  }

  /** The fiber that used the operation budget most often since `resetBudgetYields`, with its count. */
  busiestFiber(): readonly [Fiber.RuntimeFiber<unknown, unknown>, number] | undefined {
    let busiest: [Fiber.RuntimeFiber<unknown, unknown>, number] | undefined
    for (const [fiber, count] of this.budgetYieldsOf) if (busiest === undefined || count > busiest[1]) busiest = [fiber, count]
    return busiest
  }

  resetBudgetYields(): void {
    if (this.budgetYields === 0) return
    this.budgetYields = 0
    this.budgetYieldsOf.clear()
  }

  /**
   * Runs `fn`, then at once, here, the tasks it scheduled, in order, as if each had been queued where the task now
   * running stands: a task that stands in for a fiber's own step (`WatchEventBuffer`'s batches taken without waking
   * their reader) hands over to the fiber without moving it in the run queue. Tasks those tasks schedule are queued.
   */
  runInline(fn: () => void): void {
    const outer = this.inlined
    const inlined: Array<Task> = []
    this.inlined = inlined
    try {
      fn()
    } finally {
      this.inlined = outer
    }
    for (let i = 0; i < inlined.length; i++) inlined[i]!()
  }

  /** Runs the next task, if any; returns false when the queue is empty. */
  runNext(): boolean {
    if (this.queued === 0) return false
    this.queued--
    this.takeNext()()
    return true
  }

  /** Runs tasks until the queue is empty or `limit` tasks ran; returns how many ran. */
  drain(limit = Infinity): number {
    let ran = 0
    while (this.queued > 0 && ran < limit) {
      this.queued--
      this.takeNext()()
      ran++
    }
    return ran
  }

  private takeNext(): Task {
    const others = this.others
    for (let i = 0; i < others.length; i++) {
      const [priority, queue] = others[i]!
      if (priority > 0) break
      if (queue.length > 0) return queue.shift()
    }
    if (this.normal.length > 0) return this.normal.shift()
    for (let i = 0; i < others.length; i++) {
      const queue = others[i]![1]
      if (queue.length > 0) return queue.shift()
    }
    throw new Error("VirtualScheduler: run queue count out of sync")
  }
}

export const make = (): VirtualScheduler => new VirtualScheduler()
