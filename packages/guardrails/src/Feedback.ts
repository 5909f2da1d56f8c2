/**
 * Feedback recorded against a trace id: by hooks (`on_fail` / `on_success` `feedback`) and by
 * clients (`POST /v1/feedback`); read with `GET /v1/feedback?trace_id=`. The store is a service:
 * memory here, SQL later, without its callers changing.
 */
import { GatewayError } from "@switchyard/core"
import { InvalidInput } from "@switchyard/protocol"
import { Clock, Context, Effect, Layer, Result, Schema } from "effect"
import { randomUUID } from "node:crypto"

export interface FeedbackEntry {
  readonly id: string
  readonly trace_id: string
  readonly value: number
  readonly weight: number
  readonly metadata: { readonly [key: string]: unknown }
  /** `hook` (recorded by a hook's verdict) or `client` (`POST /v1/feedback`). */
  readonly source: "hook" | "client"
  /** The hook or guardrail whose verdict recorded it. */
  readonly hook_id: string | null
  /** ISO 8601. */
  readonly created_at: string
}

/** What is recorded; the store assigns id and time. */
export interface NewFeedback {
  readonly workspaceId: string
  readonly traceId: string
  readonly value: number
  readonly weight: number
  readonly metadata: { readonly [key: string]: unknown }
  readonly source: "hook" | "client"
  readonly hookId: string | null
}

export class FeedbackStore extends Context.Service<FeedbackStore, {
  readonly record: (feedback: NewFeedback) => Effect.Effect<FeedbackEntry>
  /** A workspace's feedback for one trace, oldest first. */
  readonly list: (workspaceId: string, traceId: string) => Effect.Effect<ReadonlyArray<FeedbackEntry>>
}>()("@switchyard/guardrails/FeedbackStore") {
  /** In memory, per process; lost on restart. */
  static readonly layerMemory: Layer.Layer<FeedbackStore> = Layer.sync(FeedbackStore, () => {
    const entries = new Map<string, Array<FeedbackEntry>>()
    const keyOf = (workspaceId: string, traceId: string) => `${workspaceId}\u0000${traceId}`
    return FeedbackStore.of({
      record: (feedback) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          const entry: FeedbackEntry = {
            id: randomUUID(),
            trace_id: feedback.traceId,
            value: feedback.value,
            weight: feedback.weight,
            metadata: feedback.metadata,
            source: feedback.source,
            hook_id: feedback.hookId,
            created_at: new Date(now).toISOString()
          }
          const key = keyOf(feedback.workspaceId, feedback.traceId)
          const list = entries.get(key) ?? []
          list.push(entry)
          entries.set(key, list)
          return entry
        }),
      list: (workspaceId, traceId) => Effect.sync(() => [...(entries.get(keyOf(workspaceId, traceId)) ?? [])])
    })
  })
}

/** The body of `POST /v1/feedback`. */
export const FeedbackRequest = Schema.Struct({
  trace_id: Schema.String.check(Schema.isMinLength(1, { message: "must not be empty" })),
  value: Schema.Number.check(
    Schema.isBetween({ minimum: -10, maximum: 10 }, { message: "must be between -10 and 10" })
  ),
  weight: Schema.optionalKey(
    Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1 }, { message: "must be between 0 and 1" }))
  ),
  metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})
export type FeedbackRequest = typeof FeedbackRequest.Type

/** The query of `GET /v1/feedback`. */
export const FeedbackQuery = Schema.Struct({
  trace_id: Schema.String.check(Schema.isMinLength(1, { message: "must not be empty" }))
})

const decodeRequest = InvalidInput.decodeInputResult(FeedbackRequest)
const decodeQuery = InvalidInput.decodeInputResult(FeedbackQuery)

const invalid = (error: InvalidInput.InvalidInput) =>
  new GatewayError.InvalidRequest({ message: error.message, param: error.param })

/**
 * `POST /v1/feedback`: records a client's feedback; answers
 * `{"status": "success", "message": "feedback recorded", "feedback_ids": [id]}`.
 *
 * @example
 * import { Feedback } from "@switchyard/guardrails"
 * const answer = Feedback.create("ws-1", { trace_id: "t-1", value: 5, weight: 1 })
 */
export const create = (workspaceId: string, body: unknown) =>
  Effect.gen(function*() {
    const decoded = decodeRequest(body)
    if (Result.isFailure(decoded)) return yield* invalid(decoded.failure)
    const store = yield* FeedbackStore
    const entry = yield* store.record({
      workspaceId,
      traceId: decoded.success.trace_id,
      value: decoded.success.value,
      weight: decoded.success.weight ?? 1,
      metadata: decoded.success.metadata ?? {},
      source: "client",
      hookId: null
    })
    return { status: "success", message: "feedback recorded", feedback_ids: [entry.id] } as const
  })

/**
 * `GET /v1/feedback?trace_id=`: a workspace's feedback for one trace, as
 * `{"object": "list", "data": [...]}`; a missing `trace_id` is a 400.
 */
export const list = (workspaceId: string, query: unknown) =>
  Effect.gen(function*() {
    const decoded = decodeQuery(query)
    if (Result.isFailure(decoded)) return yield* invalid(decoded.failure)
    const store = yield* FeedbackStore
    return { object: "list", data: yield* store.list(workspaceId, decoded.success.trace_id) } as const
  })
