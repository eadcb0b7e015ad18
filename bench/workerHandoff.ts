/**
 * What it costs to hand a node agent's request to another thread and take its answer back (issue 39's `--workers`,
 * docs/benchmarks.md "Both cores"): a lease renewal's request, as plain data, posted to a `worker_threads` worker in
 * batches, answered with one object per request. The main thread's CPU per request is what a worker split would add
 * to the thread that runs the API server.
 *
 *   npx tsc -p . && node dist/bench/workerHandoff.js
 *
 * Prints, for batches of 1, 10, 100 and 1,000 requests, wall µs and the main thread's CPU µs per request.
 */
import { isMainThread, parentPort, Worker } from "node:worker_threads"

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

if (!isMainThread) {
  const port = parentPort!
  port.on("message", (batch: ReadonlyArray<Renewal>) => port.postMessage(batch.map((r) => ({ i: r.i, code: 200, resourceVersion: String(r.i + 1) }))))
} else {
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
  console.log(JSON.stringify({ results }, null, 2))
}
