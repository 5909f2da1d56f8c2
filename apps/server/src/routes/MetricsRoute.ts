/**
 * GET /metrics: every metric in Prometheus text format, without authentication (scrapers carry
 * no key; nothing in it names a key, a secret or a body). `GATEWAY_METRICS=off` removes it:
 * it then answers as an unknown route does.
 */
import { GatewayError } from "@switchyard/core"
import { MetricsText } from "@switchyard/observability"
import { Context, Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import * as Edge from "../http/Edge.ts"

/** Whether the route serves (`GATEWAY_METRICS`); the server sets it. */
export const Enabled = Context.Reference<boolean>("@switchyard/server/MetricsRoute/Enabled", {
  defaultValue: () => true
})

/**
 * What is read afresh for each scrape before the text is rendered: the gauges that mirror state
 * kept elsewhere (each target's circuit). The server sets it; nothing by default.
 */
export const BeforeScrape = Context.Reference<Effect.Effect<void>>("@switchyard/server/MetricsRoute/BeforeScrape", {
  defaultValue: () => Effect.void
})

// the envelope every unknown route answers with; the trace id header is set by the route (open)
const removed = () =>
  Edge.toResponse(Edge.answerOf(new GatewayError.NotFound({ message: "no route for GET /metrics" }), ""))

export const response: Effect.Effect<HttpServerResponse.HttpServerResponse> = Enabled.use((enabled) =>
  enabled
    ? BeforeScrape.use((refresh) => refresh).pipe(
      Effect.andThen(MetricsText.render),
      Effect.map((text) => HttpServerResponse.text(text, { contentType: MetricsText.contentType }))
    )
    : Effect.sync(removed)
)
