/**
 * /v1/prompts (extensions.md, "Prompt templates"; interface 4.2): create, list, read, delete,
 * versions, publish, render, and completions through the gateway pipeline. A completion answers
 * `{status, headers, body}`, or with `stream: true` the chat completion's SSE stream itself.
 */
import { type Gateway, GatewayError, RequestContext } from "@switchyard/core"
import { PromptRun, PromptStore } from "@switchyard/prompts"
import { InvalidInput, ListQuery, PromptTemplate } from "@switchyard/protocol"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import type { BodyDeadlines } from "../http/BodyDeadlines.ts"
import * as Edge from "../http/Edge.ts"
import * as SseBody from "../http/SseBody.ts"
import { body, param, type RouteInput } from "./ManagementRoute.ts"

type Handler<R> = (input: RouteInput) => Effect.Effect<unknown, GatewayError.GatewayError, R>

const createBody = body(PromptTemplate.CreatePrompt)
const versionBody = body(PromptTemplate.CreatePromptVersion)
const publishBody = body(PromptTemplate.PublishPrompt)
// a run's variables may carry documents: its body may be as large as a chat completion's
const runBody = body(PromptTemplate.RunPrompt, { limit: "inference" })
const decodeListQuery = InvalidInput.decodeInput(ListQuery.ListQuery)

const withStore = <A, E>(use: (store: PromptStore.PromptStore["Service"]) => Effect.Effect<A, E>) =>
  PromptStore.PromptStore.use(use)

export const createPrompt: Handler<PromptStore.PromptStore | BodyDeadlines> = (input) =>
  Effect.flatMap(
    createBody(input.request),
    (request) => withStore((store) => store.create(input.principal.workspaceId, request))
  )

const listQuery = (input: RouteInput) =>
  decodeListQuery(Object.fromEntries(new URL(input.request.url, "http://gateway").searchParams)).pipe(
    Effect.mapError((error) => new GatewayError.InvalidRequest({ message: error.message, param: error.param }))
  )

export const listPrompts: Handler<PromptStore.PromptStore> = (input) =>
  Effect.flatMap(listQuery(input), (query) => withStore((store) => store.list(input.principal.workspaceId, query)))

export const getPrompt: Handler<PromptStore.PromptStore> = (input) =>
  withStore((store) => store.get(input.principal.workspaceId, param(input, "id")))

export const deletePrompt: Handler<PromptStore.PromptStore> = (input) =>
  withStore((store) => store.remove(input.principal.workspaceId, param(input, "id")))

export const createVersion: Handler<PromptStore.PromptStore | BodyDeadlines> = (input) =>
  Effect.flatMap(
    versionBody(input.request),
    (request) => withStore((store) => store.addVersion(input.principal.workspaceId, param(input, "id"), request))
  )

export const listVersions: Handler<PromptStore.PromptStore> = (input) =>
  Effect.flatMap(
    listQuery(input),
    (query) => withStore((store) => store.versions(input.principal.workspaceId, param(input, "id"), query))
  )

export const publishVersion: Handler<PromptStore.PromptStore | BodyDeadlines> = (input) =>
  Effect.flatMap(
    publishBody(input.request),
    (request) => withStore((store) => store.publish(input.principal.workspaceId, param(input, "id"), request.version))
  )

export const renderPrompt: Handler<PromptStore.PromptStore | BodyDeadlines> = (input) =>
  Effect.flatMap(
    runBody(input.request),
    (run) => PromptRun.render({ workspaceId: input.principal.workspaceId, reference: param(input, "id"), run })
  )

/** A plain answer in interface 4.2's envelope; a stream as the chat completion's own SSE. */
export const completePrompt: Handler<PromptStore.PromptStore | Gateway.Gateway | BodyDeadlines> = (input) =>
  Effect.gen(function*() {
    const run = yield* runBody(input.request)
    const headers = input.request.headers
    const traceId = RequestContext.traceIdOf(headers)
    const context = yield* RequestContext.make({ traceId, headers, principal: input.principal, receivedAt: Date.now() })
    const answer = yield* PromptRun.complete({ reference: param(input, "id"), run, context })
    const answerHeaders = { ...answer.headers, [Edge.TRACE_HEADER]: traceId }
    if (answer._tag === "Json") {
      return HttpServerResponse.jsonUnsafe(PromptRun.envelope(answer, answerHeaders), {
        status: answer.status,
        headers: answerHeaders
      })
    }
    return HttpServerResponse.stream(SseBody.encode(answer.chunks, traceId), {
      status: answer.status,
      contentType: "text/event-stream; charset=utf-8",
      headers: { ...answerHeaders, "cache-control": "no-cache" }
    })
  })
