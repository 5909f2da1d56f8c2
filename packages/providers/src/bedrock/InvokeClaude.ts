/**
 * Claude on Bedrock in Anthropic's own shape, for a client that spoke the Messages API
 * (`GatewayRequest.native`): InvokeModel (`POST /model/{modelId}/invoke`) and
 * InvokeModelWithResponseStream (`…/invoke-with-response-stream`), per docs.aws.amazon.com,
 * "Anthropic Claude Messages API" and "InvokeModelWithResponseStream". Documented rules relied on:
 * the body is Anthropic's Messages body without `model` (it is in the path) and `stream`, with
 * `anthropic_version: "bedrock-2023-05-31"` and the beta features in `anthropic_beta` (an array,
 * not a header); the answer is Anthropic's Message; the stream is event-stream frames of type
 * `chunk` whose JSON payload holds `bytes`, one Anthropic stream event base64-encoded, and failures
 * after the 200 are exception frames as in ConverseStream. Nothing of the client's body goes
 * through Converse, so thinking blocks keep their signatures and tool results their images.
 */
import { GatewayError, GatewayRequest } from "@switchyard/core"
import { Effect, Result, Schema, Stream } from "effect"
import type { MappedRequest } from "../anthropic/AnthropicRequest.ts"
import { decodeEventData, type StreamEvent, untilStop } from "../anthropic/AnthropicStreamEvents.ts"
import * as NativeMessages from "../anthropic/NativeMessages.ts"
import type { UpstreamResponse } from "../UpstreamClient.ts"
import { fromStreamException } from "./BedrockError.ts"
import { bodyText, FrameReader, headerOf, type Message } from "./EventStreamFrames.ts"

export const ANTHROPIC_VERSION = "bedrock-2023-05-31"

const PROVIDER = "bedrock"
const BETA_HEADER = "anthropic-beta"

/**
 * Claude's Bedrock ids: `anthropic.claude-…`, cross-region profiles (`us.anthropic.claude-…`,
 * `global.…`) and the ARNs of either.
 */
export const isClaudeModel = (modelId: string): boolean => /(^|[./])anthropic\.claude/.test(modelId)

/** The InvokeModel body of a Messages client's request, or undefined when it is to go through Converse. */
export const invokeBodyOf = (
  request: GatewayRequest.GatewayRequest,
  modelId: string
): Effect.Effect<MappedRequest | undefined, GatewayError.InvalidRequest> => {
  if (!isClaudeModel(modelId) || GatewayRequest.nativeFor(request, NativeMessages.FORMAT) === undefined) {
    return Effect.succeed(undefined)
  }
  return Effect.map(NativeMessages.requestOf(request), (mapped) => {
    const rest = Object.fromEntries(Object.entries(mapped.body).filter(([key]) => key !== "model" && key !== "stream"))
    const beta = mapped.headers?.[BETA_HEADER]
    const betas = beta === undefined ? [] : beta.split(",").map((name) => name.trim()).filter((name) => name !== "")
    const body = {
      ...rest,
      anthropic_version: ANTHROPIC_VERSION,
      ...(betas.length > 0 ? { anthropic_beta: betas } : {})
    }
    return { body, includeUsage: mapped.includeUsage, headers: {} }
  })
}

const ChunkPayload = Schema.Struct({ bytes: Schema.String, message: Schema.optional(Schema.String) })
const decodePayload = Schema.decodeUnknownResult(Schema.fromJsonString(ChunkPayload))
const ExceptionPayload = Schema.Struct({ message: Schema.optional(Schema.String) })
const decodeException = Schema.decodeUnknownResult(Schema.fromJsonString(ExceptionPayload))

type Failure = GatewayError.UpstreamUnreachable | GatewayError.UpstreamStatus

/** Anthropic's stream events out of InvokeModelWithResponseStream's frames, up to `message_stop`. */
export const readInvokeEvents = (response: UpstreamResponse): Stream.Stream<StreamEvent, Failure> =>
  Stream.suspend(() => {
    const reader = new FrameReader()
    const cut = (message: string) => new GatewayError.UpstreamUnreachable({ provider: PROVIDER, message })
    const events = response.stream.pipe(
      Stream.mapEffect((bytes) =>
        Effect.flatMap(
          Effect.mapError(Effect.fromResult(reader.push(bytes)), cut),
          (frames) => Effect.forEach(frames, (frame) => eventOf(frame, response.headers))
        )
      ),
      Stream.flattenIterable,
      Stream.filter((event): event is StreamEvent => event !== undefined)
    )
    return untilStop(PROVIDER, events)
  })

const eventOf = (
  frame: Message,
  headers: Readonly<Record<string, string>>
): Effect.Effect<StreamEvent | undefined, Failure> => {
  const messageType = headerOf(frame, ":message-type")
  if (messageType === "exception" || messageType === "error") {
    const type = headerOf(frame, ":exception-type") ?? headerOf(frame, ":error-code") ?? "internalServerException"
    const decoded = decodeException(bodyText(frame))
    const message = (Result.isSuccess(decoded) ? decoded.success.message : undefined) ??
      headerOf(frame, ":error-message") ?? type
    return Effect.fail(fromStreamException(type, message, headers))
  }
  // only `chunk` events carry the model's output; others (if AWS adds any) are not Anthropic's
  if (headerOf(frame, ":event-type") !== "chunk") return Effect.succeed(undefined)
  const payload = decodePayload(bodyText(frame))
  if (Result.isFailure(payload)) {
    return Effect.fail(
      new GatewayError.UpstreamUnreachable({ provider: PROVIDER, message: "a chunk carried an unreadable payload" })
    )
  }
  return decodeEventData(PROVIDER, headers, Buffer.from(payload.success.bytes, "base64").toString("utf8"))
}
