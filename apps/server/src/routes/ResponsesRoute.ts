/**
 * POST /v1/responses on the hot path (node:http, as the inference routes): the Responses request
 * is translated into a chat request and run through the very pipeline chat completions run
 * (selection headers, config, routing, retry, circuit breaker, cache, guardrails, limits,
 * logs), and the chat answer or stream is translated back (a `response` object, or the
 * Responses events with `sequence_number`). An `openai` or `azure-openai` target is sent the
 * Responses request itself, on the vendor's own endpoint, and reads its answer back into the
 * chat format (see NativeResponses in providers), so the pipeline's policies see one format. With
 * `store` (default true) the response is kept by the gateway, whichever the provider, for
 * GET/DELETE and `previous_response_id` (the vendor is asked to keep nothing).
 *
 * GET and DELETE /v1/responses/:id are ordinary routes on the router.
 */
import type { Authenticator } from "@switchyard/auth"
import { Gateway, GatewayError, GatewayResponse } from "@switchyard/core"
import {
  ChatAnswer,
  ChatRequest,
  Conversation,
  NativeBody,
  ResponseObject,
  ResponsesRequest,
  ResponseStore,
  ResponseStream
} from "@switchyard/responses-format"
import { Cause, Effect, Result, Stream } from "effect"
import type { ServerResponse } from "node:http"
import * as AccessLine from "../http/AccessLine.ts"
import type { BodyDeadlines } from "../http/BodyDeadlines.ts"
import * as Edge from "../http/Edge.ts"
import { jsonObjectReader } from "../http/NodeBody.ts"
import type { NodeHandler } from "../http/NodeEdge.ts"
import * as NodeResponse from "../http/NodeResponse.ts"
import * as RequestRecord from "../http/RequestRecord.ts"
import { headerRecord, type InferenceRouteOptions } from "./InferenceRoute.ts"
import * as ManagementRoute from "./ManagementRoute.ts"
import * as TranslatedRequest from "./TranslatedRequest.ts"

const invalid = (failure: { readonly message: string; readonly param: string | null }) =>
  new GatewayError.InvalidRequest({ message: failure.message, param: failure.param })

/** The handler of POST /v1/responses, with its services taken once at build time. */
export const make = (
  options: InferenceRouteOptions
): Effect.Effect<
  NodeHandler,
  never,
  Authenticator.Authenticator | Gateway.Gateway | BodyDeadlines | ResponseStore.ResponseStore
> =>
  Effect.gen(function*() {
    const admit = yield* Edge.admission("completions")
    const readJsonObject = yield* jsonObjectReader(options.body)
    const gateway = yield* Gateway.Gateway
    const store = yield* ResponseStore.ResponseStore
    const handle: NodeHandler = (request, response, access) => {
      const headers = headerRecord(request)
      const traceId = access.traceId
      access.endpoint = "chat.completions"
      // a chain rather than a generator, as in InferenceRoute: less garbage on every request
      const answered = Effect.flatMap(admit(headers), (principal) => {
        access.apiKeyId = principal.keyId
        access.workspaceId = principal.workspaceId
        return Effect.flatMap(readJsonObject(request), (raw) => {
          const decoded = ResponsesRequest.decode(raw)
          if (Result.isFailure(decoded)) return Effect.fail(invalid(decoded.failure))
          const body = decoded.success
          const receivedAt = TranslatedRequest.noteDecoded(access, raw, body)
          return Effect.flatMap(Conversation.expand(store, principal.workspaceId, body), (conversation) => {
            const chat = ChatRequest.toChat(body, conversation.items, conversation.inputOffset)
            if (Result.isFailure(chat)) return Effect.fail(invalid(chat.failure))
            // an openai or azure-openai target takes the request as it came (NativeResponses in providers)
            const native = {
              format: "responses",
              body: NativeBody.make(raw, conversation.items),
              messages: chat.success.messages
            }
            const run = TranslatedRequest.run(gateway, access, {
              headers,
              principal,
              receivedAt,
              chat: chat.success,
              native
            })
            return Effect.flatMap(run, (answer) => {
              const createdAt = Math.floor(receivedAt / 1000)
              const skeleton = ResponseObject.skeleton(body, ResponseObject.newId("resp"), createdAt, body.model)
              const keep = (kept: ResponseObject.Response) =>
                body.store === false ? Effect.void : store.save(principal.workspaceId, kept, conversation)
              if (answer._tag === "Stream") return writeStream(response, answer, skeleton, access, keep)
              return writeResponse(response, answer, skeleton, access, keep)
            })
          })
        })
      })
      return answered.pipe(
        Effect.catchCause((cause) => NodeResponse.writeCause(response, cause, access)),
        Effect.onInterrupt(() => Effect.sync(() => NodeResponse.writeInterrupted(response, traceId)))
      )
    }
    return handle
  })

/** A complete chat answer written as a `response` object, after it is kept (unless `store` is false). */
const writeResponse = (
  response: ServerResponse,
  answer: GatewayResponse.JsonResponse,
  skeleton: ResponseObject.Response,
  access: AccessLine.Details,
  keep: (response: ResponseObject.Response) => Effect.Effect<void, GatewayError.InternalError>
): Effect.Effect<void, GatewayError.GatewayError> => {
  AccessLine.noteUsage(access, answer.body())
  const translated = ChatAnswer.toResponse(answer.body(), skeleton)
  return Effect.flatMap(keep(translated), () =>
    NodeResponse.write(
      response,
      GatewayResponse.json(withHookResults(translated, answer.body()), {
        status: answer.status,
        headers: answer.headers
      }),
      access
    ))
}

/** The verdicts of hooks that let the request through, which the pipeline adds to a chat answer. */
const withHookResults = (translated: ResponseObject.Response, chat: unknown): unknown =>
  typeof chat === "object" && chat !== null && "hook_results" in chat
    ? { ...translated, hook_results: chat.hook_results }
    : translated

const encoder = new TextEncoder()
const eventBytes = (event: ResponseStream.Event): Uint8Array =>
  encoder.encode(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)

/**
 * The chat chunks through the state machine as Responses events. A failure after the first byte
 * ends the stream with `response.failed` and an `error` event holding the envelope's `error`.
 */
const writeStream = (
  response: ServerResponse,
  answer: GatewayResponse.StreamResponse,
  skeleton: ResponseObject.Response,
  access: AccessLine.Details,
  keep: (response: ResponseObject.Response) => Effect.Effect<void, GatewayError.InternalError>
): Effect.Effect<void, GatewayError.GatewayError> => {
  const machine = new ResponseStream.StreamTranslator(skeleton)
  response.writeHead(200, {
    ...answer.headers,
    [Edge.TRACE_HEADER]: access.traceId,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive"
  })
  response.flushHeaders()
  const translated = Stream.flatMap(answer.chunks, (chunk) => {
    access.firstChunkAt ??= performance.now()
    AccessLine.noteUsage(access, chunk)
    AccessLine.noteResponseModel(access, chunk)
    // the request log keeps what the provider streamed, in the pipeline's format
    if (access.bodies !== undefined) RequestRecord.keepChunk(access.bodies, chunk)
    return Stream.fromIterable(machine.chunk(chunk))
  })
  const events = Stream.concat(Stream.fromIterable(machine.start()), translated).pipe(
    Stream.concat(Stream.suspend(() => Stream.fromIterable(machine.finish()))),
    Stream.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Stream.failCause(cause)
        : Stream.fromEffect(
          Effect.map(Edge.failureOf(cause, access.traceId), (failure) => machine.fail(errorOf(failure)))
        )
          .pipe(Stream.flatMap(Stream.fromIterable))
    ),
    Stream.map(eventBytes)
  )
  return events.pipe(
    Stream.runForEach((bytes) => NodeResponse.writeChunk(response, bytes)),
    Effect.andThen(Effect.suspend(() => {
      const final = machine.response()
      return final === undefined || final.status === "failed" ? Effect.void : keep(final)
    })),
    Effect.andThen(Effect.sync(() => {
      response.end()
    }))
  )
}

/** The envelope's `error` member of a failure's answer. */
const errorOf = (failure: Edge.Failure) => {
  const envelope = JSON.parse(failure.body) as { readonly error: ResponseStream.StreamError }
  return envelope.error
}

/** GET /v1/responses/:id: a stored response of the caller's workspace. */
export const getResponse = (input: ManagementRoute.RouteInput) =>
  ResponseStore.ResponseStore.use((store) =>
    Effect.map(store.get(input.principal.workspaceId, ManagementRoute.param(input, "id")), (kept) => kept.response)
  )

/** DELETE /v1/responses/:id. */
export const deleteResponse = (input: ManagementRoute.RouteInput) =>
  ResponseStore.ResponseStore.use((store) =>
    store.delete(input.principal.workspaceId, ManagementRoute.param(input, "id"))
  )
