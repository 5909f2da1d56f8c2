/**
 * The server-sent events of a streamed Anthropic message (docs.anthropic.com, "Streaming
 * Messages"): `message_start`, then per content block `content_block_start`, `content_block_delta`
 * (`text_delta`, `input_json_delta`, `thinking_delta`, `signature_delta`) and `content_block_stop`,
 * then `message_delta` (`stop_reason`, cumulative `usage`) and `message_stop`; `ping` may come at
 * any point, and `error` (`{ error: { type, message } }`) may replace the rest of the stream.
 */
import { GatewayError } from "@switchyard/core"
import { Effect, Result, Schema, Stream } from "effect"
import { Sse } from "effect/encoding"
import type { UpstreamResponse } from "../UpstreamClient.ts"
import { ContentBlock, Usage } from "./AnthropicResponse.ts"

const Index = Schema.Number

export const Delta = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text_delta"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literal("input_json_delta"), partial_json: Schema.String }),
  Schema.Struct({ type: Schema.Literal("thinking_delta"), thinking: Schema.String }),
  Schema.Struct({ type: Schema.Literal("signature_delta"), signature: Schema.String }),
  Schema.Struct({ type: Schema.String })
])
export type Delta = typeof Delta.Type

export const StreamEvent = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("message_start"),
    message: Schema.Struct({ id: Schema.String, model: Schema.String, usage: Schema.optionalKey(Usage) })
  }),
  Schema.Struct({ type: Schema.Literal("content_block_start"), index: Index, content_block: ContentBlock }),
  Schema.Struct({ type: Schema.Literal("content_block_delta"), index: Index, delta: Delta }),
  Schema.Struct({
    type: Schema.Literal("message_delta"),
    delta: Schema.Struct({
      stop_reason: Schema.optionalKey(Schema.NullOr(Schema.String)),
      stop_sequence: Schema.optionalKey(Schema.NullOr(Schema.String))
    }),
    usage: Schema.optionalKey(Usage)
  }),
  Schema.Struct({
    type: Schema.Literal("error"),
    error: Schema.Struct({ type: Schema.String, message: Schema.String })
  }),
  // content_block_stop, message_stop, ping and later additions
  Schema.Struct({ type: Schema.String })
])
export type StreamEvent = typeof StreamEvent.Type

const decodeEvent = Schema.decodeUnknownResult(Schema.fromJsonString(StreamEvent))

/** The HTTP status Anthropic documents for each error type, for an `error` event inside a stream. */
const errorStatuses: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529
}

/**
 * The decoded events up to `message_stop`. A stream that ends before it, or breaks, ends with
 * `UpstreamUnreachable`; an `error` event fails with `UpstreamStatus` in Anthropic's error shape.
 */
export const readEvents = (
  provider: string,
  response: UpstreamResponse
): Stream.Stream<StreamEvent, GatewayError.UpstreamUnreachable | GatewayError.UpstreamStatus> =>
  untilStop(
    provider,
    response.stream.pipe(
      Stream.decodeText,
      Stream.pipeThroughChannel(Sse.decode()),
      Stream.mapError(() => cut(provider)),
      Stream.mapEffect((event) => decodeEventData(provider, response.headers, event.data))
    )
  )

const cut = (provider: string) => new GatewayError.UpstreamUnreachable({ provider, message: "the stream was cut" })

/**
 * The events up to `message_stop`, whatever carried them (SSE, or Bedrock's event-stream frames);
 * a source that ends before it was cut.
 */
export const untilStop = <E>(
  provider: string,
  events: Stream.Stream<StreamEvent, E>
): Stream.Stream<StreamEvent, E | GatewayError.UpstreamUnreachable> =>
  Stream.suspend(() => {
    let finished = false
    return events.pipe(
      Stream.takeUntil((event) => {
        finished = event.type === "message_stop"
        return finished
      }),
      Stream.concat(Stream.suspend(() => (finished ? Stream.empty : Stream.fail(cut(provider)))))
    )
  })

/** One event's JSON; an `error` event fails with its documented status. */
export const decodeEventData = (
  provider: string,
  headers: Readonly<Record<string, string>>,
  data: string
): Effect.Effect<StreamEvent, GatewayError.UpstreamUnreachable | GatewayError.UpstreamStatus> => {
  const decoded = decodeEvent(data)
  if (Result.isFailure(decoded)) {
    return Effect.fail(
      new GatewayError.UpstreamUnreachable({ provider, message: "the stream carried an unreadable event" })
    )
  }
  const event = decoded.success
  if ("error" in event) {
    return Effect.fail(
      new GatewayError.UpstreamStatus({
        provider,
        status: errorStatuses[event.error.type] ?? 500,
        body: { type: "error", error: event.error },
        headers
      })
    )
  }
  return Effect.succeed(event)
}
