import { GatewayMetrics, MetricsText } from "@switchyard/observability"
import { Effect } from "effect"

// what an edge records as a chat request ends, and what GET /metrics then answers
const chatEnded = Effect.gen(function*() {
  const metrics = yield* GatewayMetrics.GatewayMetrics
  const operation = { operation: "chat", provider: "openai", model: "gpt-4o-mini" }
  metrics.request("POST /v1/chat/completions", 200)
  metrics.operation(operation, 0.42)
  metrics.tokens(operation, { inputTokens: 12, outputTokens: 30 })
  return yield* MetricsText.render
}).pipe(Effect.provide(GatewayMetrics.GatewayMetrics.layer))
// README end

/** The example, typed for the test. */
export const scrapeAfterChat: Effect.Effect<string> = chatEnded
