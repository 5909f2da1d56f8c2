/**
 * How long stored responses are kept: an hourly sweep deletes those created more than
 * `retentionDays` ago, with their items, in every workspace. The Responses API stores by default
 * (`store` is true unless a request says false), so without a sweep the table only grows, and
 * each response keeps the whole conversation it answered. The default is the 30 days OpenAI keeps
 * its own stored responses; `previous_response_id` of one swept is then a 400, as there.
 *
 * @example
 * import { ResponseRetention, ResponseStore } from "@switchyard/responses-format"
 * import { Layer } from "effect"
 *
 * // stored responses in the app's SqlClient, kept a week
 * const responses = Layer.merge(
 *   ResponseStore.ResponseStore.layer,
 *   ResponseRetention.layer({ retentionDays: 7 }).pipe(Layer.provide(ResponseStore.ResponseStore.layer))
 * )
 */
import { RetentionSweep } from "@switchyard/storage"
import { Config, Duration, Effect, Layer, Schema } from "effect"
import { ResponseStore } from "./ResponseStore.ts"

export interface Options {
  /** Stored responses older than this are deleted (`GATEWAY_RESPONSES_RETENTION_DAYS`; default 30). */
  readonly retentionDays?: number | undefined
}

export const DEFAULT_RETENTION_DAYS = 30

/** `GATEWAY_RESPONSES_RETENTION_DAYS`: a whole number of days, at least 1 (default 30). */
export const OptionsConfig: Config.Config<Options> = Config.all({
  retentionDays: Config.schema(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { message: "must be a whole number of days >= 1" })),
    "GATEWAY_RESPONSES_RETENTION_DAYS"
  ).pipe(Config.withDefault(DEFAULT_RETENTION_DAYS))
})

/** How often the sweep runs; the first runs as the layer is built. */
export const SWEEP_INTERVAL = Duration.hours(1)

const DAY_SECONDS = 86_400

/** The sweep, in the background for as long as the layer lives; a failed sweep is logged and the next one tries again. */
export const layer = (options: Options = {}): Layer.Layer<never, never, ResponseStore> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const store = yield* ResponseStore
    const retentionSeconds = (options.retentionDays ?? DEFAULT_RETENTION_DAYS) * DAY_SECONDS
    const sweep = RetentionSweep.forever({
      what: "responses",
      items: "stored responses",
      interval: SWEEP_INTERVAL,
      deleteOlder: (nowMs) => store.deleteBefore(Math.floor(nowMs / 1000) - retentionSeconds)
    })
    yield* Effect.forkScoped(sweep)
  }))
