/** Number and duration formats shared by the summary, the report and their parts. */

/** `12.3ms`, `1.24s`, `850µs` — three significant figures. */
export const formatMs = (ms: number): string => {
  // trailing zeros go only after a decimal point: 150 stays 150, 1.50 becomes 1.5
  const sig = (v: number) => (v >= 1000 ? v.toFixed(0) : v.toPrecision(3).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, ""))
  if (ms === 0) return "0"
  if (ms < 1) return `${sig(ms * 1000)}µs`
  if (ms < 1000) return `${sig(ms)}ms`
  return `${sig(ms / 1000)}s`
}

/** A time into the run: `45s`, `6m40s`. */
export const clockText = (ms: number): string => {
  const s = Math.round(ms / 1000)
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`
}

/** `1 pod`, `2 pods`: `plural(n, "pod")`; irregular plurals as the third argument. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`
