/** Label maps and selectors as printers write them (`labels.FormatLabels`, `LabelSelectorAsSelector(…).String()`). */
import { arr, rec, str } from "../Printer.js"

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** `k=v,k2=v2` sorted by key; `<none>` when empty. */
export const formatLabels = (labels: Record<string, unknown>): string =>
  Object.keys(labels)
    .sort(byKey)
    .map((k) => `${k}=${str(labels[k])}`)
    .join(",") || "<none>"

/** A `LabelSelector` as selector text: requirements sorted by key, values sorted; `""` for none. */
export const formatSelector = (selector: unknown): string => {
  const s = rec(selector)
  const terms: Array<[string, string]> = []
  for (const [k, v] of Object.entries(rec(s.matchLabels))) terms.push([k, `${k}=${str(v)}`])
  for (const e of arr(s.matchExpressions).map(rec)) {
    const key = str(e.key)
    const values = arr(e.values).map(str).sort(byKey).join(",")
    switch (e.operator) {
      case "In":
        terms.push([key, `${key} in (${values})`])
        break
      case "NotIn":
        terms.push([key, `${key} notin (${values})`])
        break
      case "Exists":
        terms.push([key, key])
        break
      case "DoesNotExist":
        terms.push([key, `!${key}`])
        break
    }
  }
  return terms
    .sort((a, b) => byKey(a[0], b[0]))
    .map((t) => t[1])
    .join(",")
}
