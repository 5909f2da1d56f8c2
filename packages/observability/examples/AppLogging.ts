import { Logs } from "@switchyard/observability"
import { Effect, Layer } from "effect"

// an app's logs as the environment asks, and Effect.log… written through them
const logging = Layer.unwrap(Effect.map(Logs.LogsConfig, Logs.Logs.layer))
// README end

/** The example, typed for the test. */
export const appLogging: Layer.Layer<Logs.Logs, unknown> = logging
