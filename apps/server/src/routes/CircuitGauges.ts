/**
 * `gateway_circuit_state` (extensions.md, "Running it", metrics): each target's circuit this
 * process knows (CircuitBoard), read from the circuit store as `/metrics` is scraped, so the gauge
 * shows the state a scraper asks about — shared through Redis — rather than the last transition
 * this process happened to see. Bounded as every series is (GatewayMetrics' MAX_SERIES), and by the
 * board's own limit.
 */
import { CircuitBoard } from "@switchyard/circuit-breaker"
import { GatewayMetrics } from "@switchyard/observability"
import { Effect, Layer } from "effect"
import * as MetricsRoute from "./MetricsRoute.ts"

/** MetricsRoute's BeforeScrape: the circuits read and their gauges set. */
export const layer = Layer.effect(
  MetricsRoute.BeforeScrape,
  Effect.gen(function*() {
    const board = yield* CircuitBoard.CircuitBoard
    const metrics = yield* GatewayMetrics.GatewayMetrics
    return Effect.map(board.list, (circuits) => {
      for (const circuit of circuits) {
        if (circuit.state === "unknown") continue
        metrics.circuitState({
          provider: circuit.provider,
          host: circuit.host,
          model: circuit.model,
          credentialId: circuit.credential_id
        }, circuit.state)
      }
    })
  })
)
