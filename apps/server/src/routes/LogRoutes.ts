/**
 * /v1/logs (extensions.md, "Running it", request log): the caller's workspace's request log,
 * newest first, filtered and paged like every list; one record by id, with the feedback recorded
 * against its trace id (`POST /v1/feedback`), so a record shows what was said about its answer.
 * Both write what is buffered first: a request just answered is listed.
 */
import { GatewayError } from "@switchyard/core"
import { Feedback } from "@switchyard/guardrails"
import { LogQuery, RequestLog, RequestLogStore } from "@switchyard/request-log"
import { Effect } from "effect"
import { param, type RouteInput } from "./ManagementRoute.ts"

type Handler<R> = (input: RouteInput) => Effect.Effect<unknown, GatewayError.GatewayError, R>
type Services = RequestLog.RequestLog | RequestLogStore.RequestLogStore

const flushed = RequestLog.RequestLog.use((log) => log.flush)

export const listLogs: Handler<Services> = (input) =>
  Effect.gen(function*() {
    const query = yield* LogQuery.decode(new URL(input.request.url, "http://gateway").searchParams).pipe(
      Effect.mapError((error) => new GatewayError.InvalidRequest({ message: error.message, param: error.param }))
    )
    yield* flushed
    return yield* RequestLogStore.RequestLogStore.use((store) => store.list(input.principal.workspaceId, query))
  })

export const getLog: Handler<Services | Feedback.FeedbackStore> = (input) =>
  Effect.gen(function*() {
    yield* flushed
    const workspaceId = input.principal.workspaceId
    const record = yield* RequestLogStore.RequestLogStore.use((store) => store.get(workspaceId, param(input, "id")))
    const feedback = yield* Feedback.FeedbackStore.use((store) => store.list(workspaceId, record.trace_id))
    return { ...record, feedback }
  })
