/**
 * The node lifecycle controller (upstream `pkg/controller/nodelifecycle`, 1.26, taint manager on),
 * in upstream's parts: the monitor pass (`MonitorPass`: node health, grace periods, NoSchedule taints, zone
 * states), the zone queues (`ZoneQueues`: rate-limited NoExecute tainting per zone), the taint manager
 * (`TaintManager`: NoExecute eviction of pods honouring tolerationSeconds), and this main loop.
 *
 * The loop runs a monitor pass every monitor period (5 s), and between passes drains the zone queues (every
 * 100 ms while a node waits) and runs the taint manager's due deletions, sleeping until the next of the three.
 *
 * Choice: the controller polls every period (a LIST of nodes and leases, or a `NodeSource` cache) instead of
 * reacting to informer events.
 */
import { Clock, Effect } from "effect"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { EventRecorder } from "../../events/EventRecorder.js"
import { defaultNodeLifecycleSettings, makeLifecycleLog, type LifecycleLog, type NodeLifecycleSettings } from "./LifecycleSettings.js"
import { MonitorPass } from "./MonitorPass.js"
import type { NodeSource } from "./NodeSource.js"
import { NodeUpdates } from "./NodeUpdates.js"
import { TaintManager } from "./TaintManager.js"
import { ZoneQueues } from "./ZoneQueues.js"

/** Runs the controller forever on the context's `ApiClient`, `EventRecorder` and `Clock`. */
export const runNodeLifecycleController = (
  settings: NodeLifecycleSettings = defaultNodeLifecycleSettings,
  log: LifecycleLog = makeLifecycleLog(),
  source?: NodeSource
): Effect.Effect<never, never, ApiClient | EventRecorder> =>
  Effect.gen(function* () {
    // a monitor pass every 0 ms would run forever at one instant (the next pass is always due): refused, not spun
    if (!(settings.monitorPeriodMs > 0)) {
      return yield* Effect.dieMessage(`nodeLifecycle.monitorPeriod must be positive, got ${settings.monitorPeriodMs} ms`)
    }
    const updates = new NodeUpdates(yield* ApiClient, yield* EventRecorder, log)
    const taintManager = new TaintManager(updates)
    const zones = new ZoneQueues(settings, updates, taintManager)
    const monitor = new MonitorPass(settings, updates, zones, source)

    let nextMonitor = yield* Clock.currentTimeMillis
    for (;;) {
      let now = yield* Clock.currentTimeMillis
      if (now >= nextMonitor) {
        yield* monitor.run(now)
        nextMonitor += settings.monitorPeriodMs
        now = yield* Clock.currentTimeMillis
        if (nextMonitor <= now) nextMonitor = Math.ceil(now / settings.monitorPeriodMs) * settings.monitorPeriodMs
      }
      yield* zones.drain(now)
      yield* taintManager.runDue(now)
      now = yield* Clock.currentTimeMillis
      let wake = zones.nextDrain(now, nextMonitor)
      const due = taintManager.nextDue()
      if (due !== undefined) wake = Math.min(wake, Math.ceil(due))
      if (wake > now) yield* Effect.sleep(Math.ceil(wake - now))
    }
  })
