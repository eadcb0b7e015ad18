/**
 * `run`'s metrics flags (docs/metrics.md): `--metrics-out FILE` with `--metrics-interval` (virtual time between two
 * scrapes, whole seconds) and `--metrics-addr HOST:PORT` (PORT or :PORT alone: 127.0.0.1, a loopback listener unless
 * asked otherwise, as kube-scheduler's `--bind-address` is not). Pure: checks and the options they make.
 */
import { outFileProblem } from "./outDir.js"

export interface MetricsOptions {
  readonly metricsOut?: string
  readonly metricsIntervalMs?: number
  readonly metricsAddr?: { readonly host: string; readonly port: number }
}

/** `HOST:PORT`, `:PORT` or `PORT`; an IPv6 host in brackets (`[::1]:9100`). */
export const parseListenAddress = (text: string): { readonly host: string; readonly port: number } | string => {
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]*):)?(\d+)$/.exec(text.trim())
  if (m === null) return `--metrics-addr: expected HOST:PORT or PORT, got "${text}"`
  const port = Number(m[2])
  if (port > 65535) return `--metrics-addr: port out of range (0-65535): ${port}`
  const host = m[1] === undefined || m[1] === "" ? "127.0.0.1" : m[1].replace(/^\[|\]$/g, "")
  return { host, port }
}

export const parseMetricsFlags = (flags: {
  readonly out: string | undefined
  readonly intervalMs: number
  readonly addr: string | undefined
}): { readonly options: MetricsOptions } | { readonly error: string } => {
  if (!(flags.intervalMs >= 1000) || flags.intervalMs % 1000 !== 0)
    return { error: `--metrics-interval: must be whole seconds, at least 1s, got ${flags.intervalMs} ms` }
  const options: { -readonly [K in keyof MetricsOptions]: MetricsOptions[K] } = {}
  if (flags.out !== undefined) {
    const problem = outFileProblem(flags.out)
    if (problem !== undefined) return { error: `--metrics-out ${flags.out}: cannot write there: ${problem}` }
    options.metricsOut = flags.out
    options.metricsIntervalMs = flags.intervalMs
  }
  if (flags.addr !== undefined) {
    const addr = parseListenAddress(flags.addr)
    if (typeof addr === "string") return { error: addr }
    options.metricsAddr = addr
  }
  return { options }
}
