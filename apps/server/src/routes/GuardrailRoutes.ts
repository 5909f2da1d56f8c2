/**
 * /v1/guardrails (stored guardrails that configs name by id) and /v1/feedback (feedback recorded
 * against a trace id by hooks and by clients).
 */
import type { GatewayError } from "@switchyard/core"
import { Feedback, StoredGuardrails } from "@switchyard/guardrails"
import { StoredObjectRequests } from "@switchyard/protocol"
import { Effect } from "effect"
import type { BodyDeadlines } from "../http/BodyDeadlines.ts"
import { body, list, param, type RouteInput } from "./ManagementRoute.ts"

type Handler<R> = (input: RouteInput) => Effect.Effect<unknown, GatewayError.GatewayError, R>

const createGuardrailBody = body(StoredObjectRequests.CreateGuardrail)
const jsonBody = body(Feedback.FeedbackRequest)

export const createGuardrail: Handler<StoredGuardrails.StoredGuardrails | BodyDeadlines> = (input) =>
  Effect.gen(function*() {
    const request = yield* createGuardrailBody(input.request)
    return yield* (yield* StoredGuardrails.StoredGuardrails).create(input.principal.workspaceId, request)
  })

export const listGuardrails: Handler<StoredGuardrails.StoredGuardrails> = (input) =>
  StoredGuardrails.StoredGuardrails.use((guardrails) => Effect.map(guardrails.list(input.principal.workspaceId), list))

export const getGuardrail: Handler<StoredGuardrails.StoredGuardrails> = (input) =>
  StoredGuardrails.StoredGuardrails.use((guardrails) => guardrails.get(input.principal.workspaceId, param(input, "id")))

export const deleteGuardrail: Handler<StoredGuardrails.StoredGuardrails> = (input) =>
  StoredGuardrails.StoredGuardrails.use((guardrails) =>
    guardrails.remove(input.principal.workspaceId, param(input, "id"))
  )

export const createFeedback: Handler<Feedback.FeedbackStore | BodyDeadlines> = (input) =>
  Effect.flatMap(jsonBody(input.request), (request) => Feedback.create(input.principal.workspaceId, request))

export const listFeedback: Handler<Feedback.FeedbackStore> = (input) =>
  Feedback.list(input.principal.workspaceId, {
    trace_id: new URL(input.request.url, "http://gateway").searchParams.get("trace_id") ?? ""
  })
