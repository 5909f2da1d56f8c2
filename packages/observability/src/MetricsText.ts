/**
 * The metrics as Prometheus text (`GET /metrics`), rendered by effect's `PrometheusMetrics` from
 * the registry of the context it runs in: the one `GatewayMetrics` records into.
 */
import { Effect } from "effect"
import { PrometheusMetrics } from "effect/observability"

/** The content type Prometheus expects of the text exposition format. */
export const contentType = "text/plain; version=0.0.4; charset=utf-8"

/** The current value of every metric, in the text exposition format. */
export const render: Effect.Effect<string> = PrometheusMetrics.format()
