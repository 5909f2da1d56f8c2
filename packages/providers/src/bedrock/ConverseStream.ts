/**
 * Bedrock ConverseStream → OpenAI `chat.completion.chunk`s, one frame at a time as the bytes
 * arrive. The API reference defines the events (`:event-type` header, JSON payload):
 * `messageStart {role}`, `contentBlockStart {contentBlockIndex, start: {toolUse: {toolUseId, name}}}`,
 * `contentBlockDelta {contentBlockIndex, delta: {text} | {toolUse: {input}} | {reasoningContent: {text}}}`,
 * `contentBlockStop`, `messageStop {stopReason}`, `metadata {usage, metrics}`; failures come as
 * `:message-type: exception` frames named by `:exception-type`, or `error` frames.
 */
import { GatewayError, type GatewayRequest } from "@switchyard/core"
import { Effect, Result, Schema, Stream } from "effect"
import type { UpstreamResponse } from "../UpstreamClient.ts"
import { fromStreamException } from "./BedrockError.ts"
import { finishReasonOf, Usage, usageOf } from "./ConverseResponse.ts"
import { bodyText, FrameReader, headerOf, type Message } from "./EventStreamFrames.ts"

type Chunk = GatewayRequest.JsonObject

export interface StreamIdentity {
  readonly id: string
  readonly created: number
  readonly model: string
  readonly includeUsage: boolean
  readonly withReasoning: boolean
}

const EventBody = Schema.Struct({
  contentBlockIndex: Schema.optional(Schema.Number),
  start: Schema.optional(Schema.Struct({
    toolUse: Schema.optional(Schema.Struct({ toolUseId: Schema.String, name: Schema.String }))
  })),
  delta: Schema.optional(Schema.Struct({
    text: Schema.optional(Schema.String),
    toolUse: Schema.optional(Schema.Struct({ input: Schema.String })),
    reasoningContent: Schema.optional(Schema.Struct({ text: Schema.optional(Schema.String) }))
  })),
  stopReason: Schema.optional(Schema.String),
  usage: Schema.optional(Usage),
  message: Schema.optional(Schema.String)
})
type EventBody = typeof EventBody.Type
const decodeBody = Schema.decodeUnknownResult(Schema.fromJsonString(EventBody))

/** The chunks of one ConverseStream answer; a stream that ends before its last event is cut. */
export const toChunks = (
  response: UpstreamResponse,
  identity: StreamIdentity
): Stream.Stream<Chunk, GatewayError.GatewayError> =>
  Stream.suspend(() => {
    const reader = new FrameReader()
    const state = new StreamState(identity, response.headers)
    const cut = (message: string) => new GatewayError.UpstreamUnreachable({ provider: "bedrock", message })
    return response.stream.pipe(
      Stream.mapEffect((bytes) =>
        Effect.flatMap(
          Effect.mapError(Effect.fromResult(reader.push(bytes)), cut),
          (frames) => Effect.fromResult(state.onFrames(frames))
        )
      ),
      Stream.flattenIterable,
      Stream.concat(
        Stream.suspend(() => reader.pending || !state.complete ? Stream.fail(cut("the stream was cut")) : Stream.empty)
      )
    )
  })

class StreamState {
  readonly #identity: StreamIdentity
  readonly #headers: Readonly<Record<string, string>>
  readonly #toolIndex = new Map<number, number>()
  #stopped = false
  #metadata = false

  constructor(identity: StreamIdentity, headers: Readonly<Record<string, string>>) {
    this.#identity = identity
    this.#headers = headers
  }

  /** The stream carried its stop, and its usage when the client asked for it. */
  get complete(): boolean {
    return this.#stopped && (this.#metadata || !this.#identity.includeUsage)
  }

  onFrames(frames: ReadonlyArray<Message>): Result.Result<Array<Chunk>, GatewayError.GatewayError> {
    const chunks: Array<Chunk> = []
    for (const frame of frames) {
      const result = this.onFrame(frame)
      if (Result.isFailure(result)) return result
      chunks.push(...result.success)
    }
    return Result.succeed(chunks)
  }

  onFrame(frame: Message): Result.Result<Array<Chunk>, GatewayError.GatewayError> {
    const messageType = headerOf(frame, ":message-type") ?? "event"
    const decoded = decodeBody(bodyText(frame))
    const body: EventBody = Result.isSuccess(decoded) ? decoded.success : {}
    if (messageType === "exception") {
      const type = headerOf(frame, ":exception-type") ?? "internalServerException"
      return Result.fail(fromStreamException(type, body.message ?? type, this.#headers))
    }
    if (messageType === "error") {
      const code = headerOf(frame, ":error-code") ?? "internalServerException"
      return Result.fail(fromStreamException(code, headerOf(frame, ":error-message") ?? code, this.#headers))
    }
    if (Result.isFailure(decoded)) {
      return Result.fail(
        new GatewayError.UpstreamUnreachable({ provider: "bedrock", message: "an event carried an unreadable payload" })
      )
    }
    return Result.succeed(this.onEvent(headerOf(frame, ":event-type") ?? "", body))
  }

  onEvent(type: string, body: EventBody): Array<Chunk> {
    switch (type) {
      case "messageStart":
        return [this.chunk({ role: "assistant", content: "" })]
      case "contentBlockStart": {
        const toolUse = body.start?.toolUse
        if (toolUse === undefined) return []
        const index = this.#toolIndex.size
        this.#toolIndex.set(body.contentBlockIndex ?? index, index)
        return [this.chunk({
          tool_calls: [{
            index,
            id: toolUse.toolUseId,
            type: "function",
            function: { name: toolUse.name, arguments: "" }
          }]
        })]
      }
      case "contentBlockDelta":
        return this.onDelta(body)
      case "messageStop":
        this.#stopped = true
        return [this.chunk({}, finishReasonOf(body.stopReason ?? "end_turn"))]
      case "metadata":
        this.#metadata = true
        return this.#identity.includeUsage && body.usage !== undefined
          ? [{ ...this.base(), choices: [], usage: usageOf(body.usage) }]
          : []
      default:
        return []
    }
  }

  onDelta(body: EventBody): Array<Chunk> {
    const delta = body.delta
    if (delta?.text !== undefined) return [this.chunk({ content: delta.text })]
    if (delta?.toolUse !== undefined) {
      const index = this.#toolIndex.get(body.contentBlockIndex ?? -1)
      return index === undefined
        ? []
        : [this.chunk({ tool_calls: [{ index, function: { arguments: delta.toolUse.input } }] })]
    }
    const reasoning = delta?.reasoningContent?.text
    return this.#identity.withReasoning && reasoning !== undefined ? [this.chunk({ reasoning_content: reasoning })] : []
  }

  base() {
    return {
      id: this.#identity.id,
      object: "chat.completion.chunk",
      created: this.#identity.created,
      model: this.#identity.model
    }
  }

  chunk(delta: Chunk, finishReason: string | null = null): Chunk {
    return { ...this.base(), choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] }
  }
}
