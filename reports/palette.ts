/**
 * A style per series that stays distinguishable with many series: Paul Tol's "muted" qualitative scheme (nine
 * colours told apart with the common colour-vision deficiencies), then the same colours again with dash patterns —
 * 36 styles before one repeats. The HTML charts, their legend and latency.svg use the same style for a series.
 */
export const seriesColors: ReadonlyArray<string> = ["#332288", "#CC6677", "#117733", "#88CCEE", "#882255", "#44AA99", "#DDCC77", "#999933", "#AA4499"]

/** Canvas/SVG dash arrays (px): solid, dashed, dotted, dash-dot. */
export const dashPatterns: ReadonlyArray<ReadonlyArray<number>> = [[], [6, 3], [2, 2], [8, 3, 2, 3]]

export interface SeriesStyle {
  readonly color: string
  /** Empty: a solid line. */
  readonly dash: ReadonlyArray<number>
}

export const seriesStyle = (i: number): SeriesStyle => ({
  color: seriesColors[i % seriesColors.length]!,
  dash: dashPatterns[Math.floor(i / seriesColors.length) % dashPatterns.length]!
})

/** How many series get a style of their own. */
export const distinctStyles = seriesColors.length * dashPatterns.length
