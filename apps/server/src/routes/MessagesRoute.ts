/**
 * POST /v1/messages and /v1/messages/count_tokens, Anthropic's Messages API, on the hot path
 * (node:http, as the inference routes). A Messages request is translated into the internal chat
 * request and run through the very pipeline chat completions run (selection headers, config,
 * routing, retry, circuit breaker, cache, guardrails, limits, logs); the chat answer or stream
 * is translated back (a Message, or Anthropic's stream events). Anthropic targets (and Claude on
 * Vertex AI) are sent the client's own body (core's GatewayRequest.native) unless a stage
 * rewrote the conversation, when their adapter translates the chat body back. Errors answer in
 * Anthropic's shape with the status chat completions would give.
 *
 * Anthropic's clients send one key, in `x-api-key` (or `Authorization: Bearer`): without
 * `x-gateway-api-key`, that key is the gateway key; with it, `x-api-key` stands in for
 * `Authorization` as the provider's key (`x-gateway-provider`).
 */
import type { Authenticator } from "@switchyard/auth"
import { Gateway, GatewayError, type GatewayResponse, type ProviderRegistry, RequestContext } from "@switchyard/core"
import {
  ChatToMessage,
  MessagesError,
  MessagesRequest,
  MessagesStream,
  MessagesToChat,
  TokenCount,
  TokenEstimate
} from "@switchyard/messages-format"
import type { StoredConfigs } from "@switchyard/provider-access"
import { Cause, Effect, Option, Result, Stream } from "effect"
import type { ServerResponse } from "node:http"
import * as AccessLine from "../http/AccessLine.ts"
import type { BodyDeadlines } from "../http/BodyDeadlines.ts"
import * as Edge from "../http/Edge.ts"
import { jsonObjectReader } from "../http/NodeBody.ts"
import type { NodeHandler } from "../http/NodeEdge.ts"
import * as NodeResponse from "../http/NodeResponse.ts"
import * as RequestRecord from "../http/RequestRecord.ts"
import { headerRecord, type InferenceRouteOptions } from "./InferenceRoute.ts"
import * as ProviderTokenCount from "./ProviderTokenCount.ts"
import * as TranslatedRequest from "./TranslatedRequest.ts"

type Services = Authenticator.Authenticator | Gateway.Gateway | BodyDeadlines

const invalid = (failure: { readonly message: string; readonly param: string | null }) =>
  new GatewayError.InvalidRequest({ message: failure.message, param: failure.param })

/** The handler of POST /v1/messages, with its services taken once at build time. */
export const create = (options: InferenceRouteOptions): Effect.Effect<NodeHandler, never, Services> =>
  Effect.gen(function*() {
    const admit = yield* Edge.admission("completions")
    const readJsonObject = yield* jsonObjectReader(options.body)
    const gateway = yield* Gateway.Gateway
    const handle: NodeHandler = (request, response, access) => {
      const headers = withGatewayKey(headerRecord(request))
      const traceId = access.traceId
      access.endpoint = "chat.completions"
      // a chain rather than a generator, as in InferenceRoute: less garbage on every request
      const answered = Effect.flatMap(admit(headers), (principal) => {
        access.apiKeyId = principal.keyId
        access.workspaceId = principal.workspaceId
        return Effect.flatMap(readJsonObject(request), (raw) => {
          const decoded = MessagesRequest.decode(raw)
          if (Result.isFailure(decoded)) return Effect.fail(invalid(decoded.failure))
          const body = decoded.success
          const receivedAt = TranslatedRequest.noteDecoded(access, raw, body)
          const chat = MessagesToChat.toChatRequest(body)
          // an Anthropic target is sent the client's own body while the pipeline leaves the conversation be
          const native = { format: "messages", body: raw, messages: chat.messages }
          const run = TranslatedRequest.run(gateway, access, { headers, principal, receivedAt, chat, native })
          return Effect.flatMap(run, (answer) => {
            if (answer._tag === "Json") return writeMessage(response, answer, access)
            const estimate = { estimatedInputTokens: TokenEstimate.inputTokens(body), model: body.model }
            return writeStream(response, answer.headers, answer.chunks, estimate, access)
          })
        })
      })
      return answered.pipe(
        Effect.catchCause((cause) => writeCause(response, cause, access)),
        Effect.onInterrupt(() => Effect.sync(() => writeInterrupted(response, traceId)))
      )
    }
    return handle
  })

/**
 * The handler of POST /v1/messages/count_tokens: the provider's own count where its API has one
 * (ProviderTokenCount), else TokenCount's local tokenizer count.
 */
export const countTokens = (
  options: InferenceRouteOptions
): Effect.Effect<NodeHandler, never, Services | ProviderRegistry.ProviderRegistry | StoredConfigs.StoredConfigs> =>
  Effect.gen(function*() {
    const admit = yield* Edge.admission("completions")
    const readJsonObject = yield* jsonObjectReader(options.body)
    const providerCount = yield* ProviderTokenCount.make
    const handle: NodeHandler = (request, response, access) => {
      const headers = withGatewayKey(headerRecord(request))
      const answered = Effect.gen(function*() {
        const principal = yield* admit(headers)
        access.apiKeyId = principal.keyId
        access.workspaceId = principal.workspaceId
        const raw = yield* readJsonObject(request)
        const decoded = MessagesRequest.decodeCountTokens(raw)
        if (Result.isFailure(decoded)) return yield* invalid(decoded.failure)
        const model = decoded.success.model
        access.model = model
        const counted = yield* providerCount({ body: raw, model, headers, workspaceId: principal.workspaceId })
        const inputTokens = Option.isSome(counted)
          ? counted.value
          : yield* TokenCount.inputTokens(decoded.success, model)
        const answer = JSON.stringify({ input_tokens: inputTokens })
        Edge.writeJson(response, 200, { [Edge.TRACE_HEADER]: access.traceId }, answer)
      })
      return answered.pipe(
        Effect.catchCause((cause) => writeCause(response, cause, access)),
        Effect.onInterrupt(() => Effect.sync(() => writeInterrupted(response, access.traceId)))
      )
    }
    return handle
  })

const bearer = /^Bearer\s+(.+)$/i

/**
 * The headers as the gateway reads them: a client that sends one key (Anthropic's send it in
 * `x-api-key`) sends the gateway key; one that sends `x-gateway-api-key` may send the provider's
 * key in `x-api-key`.
 */
export const withGatewayKey = (headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> => {
  const apiKey = headers["x-api-key"]
  if (headers[RequestContext.Headers.apiKey] !== undefined) {
    return apiKey !== undefined && headers.authorization === undefined
      ? { ...headers, authorization: `Bearer ${apiKey}` }
      : headers
  }
  if (apiKey !== undefined && apiKey !== "") {
    const { "x-api-key": _, ...rest } = headers
    return { ...rest, [RequestContext.Headers.apiKey]: apiKey }
  }
  const token = bearer.exec(headers.authorization ?? "")?.[1]
  if (token === undefined) return headers
  const { authorization: _, ...rest } = headers
  return { ...rest, [RequestContext.Headers.apiKey]: token }
}

/** A complete chat answer written as a Message, its usage and model noted on the access line. */
const writeMessage = (
  response: ServerResponse,
  answer: GatewayResponse.JsonResponse,
  access: AccessLine.Details
): Effect.Effect<void, GatewayError.GatewayError> => {
  const completion = answer.body()
  AccessLine.noteUsage(access, completion)
  AccessLine.noteResponseModel(access, completion)
  const message = ChatToMessage.toMessage(completion)
  if (message === undefined) {
    return Effect.fail(
      new GatewayError.UpstreamUnreachable({
        provider: access.provider ?? "upstream",
        message: "answered with a body that is not a chat completion"
      })
    )
  }
  if (access.bodies !== undefined) access.bodies.response = message
  const written: Record<string, string | number> = { ...answer.headers, [Edge.TRACE_HEADER]: access.traceId }
  Edge.writeJson(response, answer.status, written, JSON.stringify(message))
  return Effect.void
}

const writeStream = (
  response: ServerResponse,
  headers: Readonly<Record<string, string>>,
  chunks: Stream.Stream<Readonly<Record<string, unknown>>, GatewayError.GatewayError>,
  options: MessagesStream.StreamOptions,
  access: AccessLine.Details
): Effect.Effect<void> => {
  response.writeHead(200, {
    ...headers,
    [Edge.TRACE_HEADER]: access.traceId,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive"
  })
  response.flushHeaders()
  const noted = Stream.map(chunks, (chunk) => {
    access.firstChunkAt ??= performance.now()
    AccessLine.noteUsage(access, chunk)
    AccessLine.noteResponseModel(access, chunk)
    // the request log keeps what the provider streamed, in the pipeline's format (as for Responses)
    if (access.bodies !== undefined) RequestRecord.keepChunk(access.bodies, chunk)
    return chunk
  })
  const errorBody = (cause: Cause.Cause<GatewayError.GatewayError>) =>
    Effect.map(Edge.failureOf(cause, access.traceId), anthropicFailure)
  return MessagesStream.toEvents(noted, options, (cause) => Effect.map(errorBody(cause), (failure) => failure.body))
    .pipe(
      Stream.runForEach((event) => NodeResponse.writeChunk(response, MessagesStream.encodeEvent(event))),
      Effect.andThen(Effect.sync(() => response.end()))
    )
}

interface AnthropicFailure {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: MessagesError.ErrorBody
}

/** A failure as Edge answers it, in Anthropic's error shape (the envelope's message kept). */
const anthropicFailure = (failure: Edge.Failure): AnthropicFailure => {
  const envelope: unknown = JSON.parse(failure.body)
  const message = typeof envelope === "object" && envelope !== null && "error" in envelope &&
      typeof envelope.error === "object" && envelope.error !== null && "message" in envelope.error &&
      typeof envelope.error.message === "string"
    ? envelope.error.message
    : "the request failed"
  return { status: failure.status, headers: failure.headers, body: MessagesError.body(failure.status, message) }
}

const writeFailure = (response: ServerResponse, failure: AnthropicFailure): void => {
  if (!response.headersSent) {
    Edge.writeJson(response, failure.status, { ...failure.headers }, JSON.stringify(failure.body))
  } else if (!response.writableEnded) {
    response.end(MessagesStream.encodeEvent({ type: "error", error: failure.body.error }))
  }
}

const writeCause = (
  response: ServerResponse,
  cause: Cause.Cause<GatewayError.GatewayError>,
  access: AccessLine.Details
): Effect.Effect<void> =>
  Effect.map(Edge.failureOf(cause, access.traceId), (failure) => {
    AccessLine.noteAnswer(access, failure.headers)
    writeFailure(response, anthropicFailure(failure))
  })

const stopped = new GatewayError.Unavailable({
  message: "the gateway is shutting down and stopped before this answer was complete"
})

/** Interrupted: by the client leaving (nothing to write), or by the shutdown, which the client learns. */
const writeInterrupted = (response: ServerResponse, traceId: string): void => {
  if (!response.destroyed && !response.writableEnded) {
    writeFailure(response, anthropicFailure(Edge.answerOf(stopped, traceId)))
  }
}
