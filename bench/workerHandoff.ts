/**
 * What it costs to split a simulation over two threads (issue 39's `--workers`, docs/benchmarks.md "Both cores"):
 * - handing a node agent's request to another thread and taking its answer back: a lease renewal's request, as plain
 *   data, posted to a `worker_threads` worker in batches, answered with one object per request. The main thread's
 *   CPU per request is what a worker split would add to the thread that runs the API server;
 * - the synchronisation of one conservative window: the main thread releases window k through a `SharedArrayBuffer`
 *   and waits until the worker reports it done, by `Atomics.wait`/`notify` (the threads sleep) and by spinning (both
 *   threads burn their core). A conservative split pays one such round trip per window at least, and its window is
 *   the model's smallest latency (1 ms of virtual time by default, `ServiceTimeModel`'s `readBaseMs`).
 *
 *   npx tsc -p . && node dist/bench/workerHandoff.js
 *
 * Prints, for batches of 1, 10, 100 and 1,000 requests, wall µs and the main thread's CPU µs per request; then wall µs
 * and the main thread's CPU µs per window round trip, sleeping and spinning.
 */
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads"

interface Renewal {
  readonly i: number
  readonly verb: "update"
  readonly name: string
  readonly namespace: string
  readonly body: { readonly spec: { readonly holderIdentity: string; readonly leaseDurationSeconds: number; readonly renewTime: string } }
}

const renewal = (i: number): Renewal => ({
  i,
  verb: "update",
  name: `node-${i}`,
  namespace: "kube-node-lease",
  body: { spec: { holderIdentity: `node-${i}`, leaseDurationSeconds: 40, renewTime: "2026-11-29T19:00:00.000000Z" } }
})

/** Cells of the window flags: the window released by the main thread, the window the worker finished. */
const Released = 0
const Done = 1

interface WindowWorker {
  readonly flags: SharedArrayBuffer
  readonly windows: number
  readonly spin: boolean
}

/** The worker's side of the window round trips: wait for window k, report it done. */
const serveWindows = ({ flags, windows, spin }: WindowWorker): void => {
  const cells = new Int32Array(flags)
  for (let k = 1; k <= windows; k++) {
    if (spin) while (Atomics.load(cells, Released) < k);
    else while (Atomics.load(cells, Released) < k) Atomics.wait(cells, Released, k - 1)
    Atomics.store(cells, Done, k)
    if (!spin) Atomics.notify(cells, Done)
  }
}

const handoff = async () => {
  const worker = new Worker(new URL(import.meta.url))
  const roundTrip = (batch: ReadonlyArray<Renewal>) =>
    new Promise<void>((resolve) => {
      worker.once("message", () => resolve())
      worker.postMessage(batch)
    })
  const results = []
  for (const size of [1, 10, 100, 1_000]) {
    const batch = Array.from({ length: size }, (_, i) => renewal(i))
    const rounds = Math.max(200, 200_000 / size)
    for (let r = 0; r < rounds / 10; r++) await roundTrip(batch) // warm-up
    const cpuBefore = process.cpuUsage()
    const wallBefore = performance.now()
    for (let r = 0; r < rounds; r++) await roundTrip(batch)
    const wallMs = performance.now() - wallBefore
    const cpu = process.cpuUsage(cpuBefore)
    const requests = rounds * size
    results.push({
      batch: size,
      wallMicrosPerRequest: +((wallMs * 1_000) / requests).toFixed(2),
      mainThreadCpuMicrosPerRequest: +((cpu.user + cpu.system) / requests).toFixed(2)
    })
  }
  await worker.terminate()
  return results
}

/** `windows` round trips; the main thread's CPU is read from its own thread clock (`process.threadCpuUsage` is Node 23+). */
const windowRoundTrips = async (spin: boolean, windows: number) => {
  const flags = new SharedArrayBuffer(8)
  const cells = new Int32Array(flags)
  const worker = new Worker(new URL(import.meta.url), { workerData: { flags, windows, spin } satisfies WindowWorker })
  await new Promise<void>((resolve) => worker.once("online", () => resolve()))
  const cpuBefore = process.cpuUsage()
  const wallBefore = performance.now()
  for (let k = 1; k <= windows; k++) {
    Atomics.store(cells, Released, k)
    if (spin) while (Atomics.load(cells, Done) < k);
    else {
      Atomics.notify(cells, Released)
      while (Atomics.load(cells, Done) < k) Atomics.wait(cells, Done, k - 1)
    }
  }
  const wallMs = performance.now() - wallBefore
  const cpu = process.cpuUsage(cpuBefore)
  await worker.terminate()
  return {
    waiting: spin ? "spin" : "Atomics.wait",
    windows,
    wallMicrosPerWindow: +((wallMs * 1_000) / windows).toFixed(2),
    // the process's CPU (both threads) per window: spinning burns both cores for the whole round trip
    processCpuMicrosPerWindow: +(((cpu.user + cpu.system) / windows)).toFixed(2)
  }
}

if (!isMainThread) {
  const windows = workerData as WindowWorker | undefined
  if (windows !== undefined) serveWindows(windows)
  else {
    const port = parentPort!
    port.on("message", (batch: ReadonlyArray<Renewal>) => port.postMessage(batch.map((r) => ({ i: r.i, code: 200, resourceVersion: String(r.i + 1) }))))
  }
} else {
  const results = await handoff()
  const windows = [await windowRoundTrips(false, 200_000), await windowRoundTrips(true, 1_000_000)]
  console.log(JSON.stringify({ results, windows }, null, 2))
}
