/**
 * The step the edges for other client formats (Messages, Responses) share: a request translated
 * into the chat format runs through the very pipeline chat completions run, with the client's own
 * body beside it for a target that serves that format (core's GatewayRequest.native).
 */
import {
  type Gateway,
  type GatewayError,
  type GatewayRequest,
  type GatewayResponse,
  type Principal,
  RequestContext
} from "@switchyard/core"
import { Effect } from "effect"
import * as AccessLine from "../http/AccessLine.ts"

export interface TranslatedRequest {
  readonly headers: Readonly<Record<string, string>>
  readonly principal: Principal.Principal
  /** When the request was received (epoch ms), as the access line notes it. */
  readonly receivedAt: number
  /** The chat body the client's request was translated into. */
  readonly chat: GatewayRequest.JsonObject
  /** The client's own request, whose `messages` are the chat body's (compared by identity). */
  readonly native: GatewayRequest.NativeRequest
}

/**
 * Notes a decoded client request on the access line (its model, whether it streams, its body when
 * the request log keeps bodies) and answers when it was received, as `run` takes it.
 */
export const noteDecoded = (
  access: AccessLine.Details,
  raw: GatewayRequest.JsonObject,
  body: { readonly model: string; readonly stream?: boolean | null | undefined }
): number => {
  access.model = body.model
  if (body.stream === true) access.stream = true
  // the edge asks for bodies only when the request log keeps them
  if (access.bodies !== undefined) access.bodies.request = raw
  const receivedAt = Date.now()
  access.receivedAt = receivedAt
  return receivedAt
}

/** The translated request's answer from the pipeline, its context and answer noted on the access line. */
export const run = (
  gateway: Gateway.Gateway["Service"],
  access: AccessLine.Details,
  request: TranslatedRequest
): Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError> =>
  // a chain rather than a generator, as in InferenceRoute: less garbage on every request
  Effect.flatMap(
    RequestContext.make({
      traceId: access.traceId,
      headers: withReasoning(request.headers),
      principal: request.principal,
      receivedAt: request.receivedAt,
      notes: access
    }),
    (context) => {
      access.metadata = context.metadata
      const answer = gateway.handle({
        endpoint: "chat.completions",
        body: request.chat,
        context,
        native: request.native
      })
      return Effect.map(answer, (answer) => {
        AccessLine.noteAnswer(access, answer.headers)
        return answer
      })
    }
  )

/**
 * Reasoning reaches the chat format only where a target is not held to strict vendor compliance
 * (protocol's ChatReasoning); these formats carry reasoning as part of their answers, so their
 * edges ask for it unless the caller said otherwise.
 */
const withReasoning = (headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> =>
  headers[RequestContext.Headers.strictVendorCompliance] === undefined
    ? { ...headers, [RequestContext.Headers.strictVendorCompliance]: "false" }
    : headers
