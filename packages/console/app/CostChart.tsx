/**
 * Cost over time as an inline SVG bar chart: the sum of `cost_usd` per bucket of the window. No
 * chart library: a few rectangles and labels, styled by the page's style sheet.
 */
import { usd } from "./format.ts"

export interface Bucket {
  /** Unix seconds at which the bucket starts. */
  readonly start: number
  readonly cost: number
  readonly requests: number
}

const WIDTH = 720
const HEIGHT = 200
const LEFT = 64
const BOTTOM = 24

const label = (seconds: number, bucketSeconds: number) => {
  const date = new Date(seconds * 1000)
  return bucketSeconds >= 86_400
    ? date.toLocaleDateString(undefined, { month: "short", day: "numeric" })
    : date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" })
}

export const CostChart = (
  { buckets, bucketSeconds }: { readonly buckets: ReadonlyArray<Bucket>; readonly bucketSeconds: number }
) => {
  const top = Math.max(...buckets.map((bucket) => bucket.cost), 0)
  const plotWidth = WIDTH - LEFT
  const plotHeight = HEIGHT - BOTTOM
  const slot = plotWidth / Math.max(buckets.length, 1)
  const every = Math.max(1, Math.ceil(buckets.length / 6))
  return (
    <svg class="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label="Cost over time">
      <line class="axis" x1={LEFT} y1={plotHeight} x2={WIDTH} y2={plotHeight} />
      <text class="tick" x={LEFT - 6} y={10} text-anchor="end">{usd(top)}</text>
      <text class="tick" x={LEFT - 6} y={plotHeight} text-anchor="end">$0</text>
      {buckets.map((bucket, index) => {
        const height = top === 0 ? 0 : (bucket.cost / top) * (plotHeight - 12)
        const x = LEFT + index * slot
        return (
          <g key={bucket.start}>
            <rect class="bar" x={x + slot * 0.1} y={plotHeight - height} width={slot * 0.8} height={height}>
              <title>
                {`${label(bucket.start, bucketSeconds)}: ${usd(bucket.cost)} over ${bucket.requests} requests`}
              </title>
            </rect>
            {index % every === 0
              ? (
                <text class="tick" x={x + slot / 2} y={HEIGHT - 6} text-anchor="middle">
                  {label(bucket.start, bucketSeconds)}
                </text>
              )
              : null}
          </g>
        )
      })}
    </svg>
  )
}

/** Sums the records' costs into `count` buckets of `bucketSeconds` ending at `now`. */
export const bucketize = (
  records: ReadonlyArray<{ readonly created_at: number; readonly cost_usd: number | null }>,
  options: { readonly now: number; readonly bucketSeconds: number; readonly count: number }
): ReadonlyArray<Bucket> => {
  const first = Math.floor(options.now / options.bucketSeconds) * options.bucketSeconds -
    (options.count - 1) * options.bucketSeconds
  const buckets = Array.from({ length: options.count }, (_, index) => ({
    start: first + index * options.bucketSeconds,
    cost: 0,
    requests: 0
  }))
  for (const record of records) {
    const bucket = buckets[Math.floor((record.created_at - first) / options.bucketSeconds)]
    if (bucket === undefined) continue
    bucket.cost += record.cost_usd ?? 0
    bucket.requests += 1
  }
  return buckets
}
