/**
 * A streamed Anthropic message as OpenAI `chat.completion.chunk` objects, one event at a time: the
 * role chunk from `message_start`, content and tool call deltas (a tool call's index is its ordinal
 * among the message's tool calls; its first delta carries id and name), the finish reason from
 * `message_delta`, and the usage chunk at `message_stop` when the caller asked for it.
 */
import type { GatewayError, GatewayRequest } from "@switchyard/core"
import { Stream } from "effect"
import type { UpstreamResponse } from "../UpstreamClient.ts"
import { finishReasonOf, type Usage, usageOf } from "./AnthropicResponse.ts"
import { type Delta, readEvents, type StreamEvent } from "./AnthropicStreamEvents.ts"

export interface StreamOptions {
  readonly provider: string
  readonly created: number
  readonly includeUsage: boolean
  /** Whether thinking is returned (`strict_vendor_compliance: false`). */
  readonly extras: boolean
}

type Chunk = GatewayRequest.JsonObject

export const toChunks = (
  response: UpstreamResponse,
  options: StreamOptions
): Stream.Stream<Chunk, GatewayError.UpstreamUnreachable | GatewayError.UpstreamStatus> =>
  eventsToChunks(readEvents(options.provider, response), options)

/** The chunks of Anthropic's events however they arrived (Bedrock frames them in its event stream). */
export const eventsToChunks = <E>(
  events: Stream.Stream<StreamEvent, E>,
  options: StreamOptions
): Stream.Stream<Chunk, E> =>
  Stream.suspend(() => {
    const translator = new ChunkTranslator(options)
    return events.pipe(
      Stream.map((event) => translator.next(event)),
      Stream.flattenIterable
    )
  })

class ChunkTranslator {
  readonly #options: StreamOptions
  #id = ""
  #model = ""
  #usage: Usage = {}
  readonly #toolIndexByBlock = new Map<number, number>()

  constructor(options: StreamOptions) {
    this.#options = options
  }

  next(event: StreamEvent): ReadonlyArray<Chunk> {
    if ("message" in event) {
      this.#id = event.message.id
      this.#model = event.message.model
      this.#usage = event.message.usage ?? {}
      return [this.#chunk({ role: "assistant", content: "" })]
    }
    if ("content_block" in event) {
      const block = event.content_block
      if ("name" in block) {
        const index = this.#toolIndexByBlock.size
        this.#toolIndexByBlock.set(event.index, index)
        return [this.#chunk({
          tool_calls: [{ index, id: block.id, type: "function", function: { name: block.name, arguments: "" } }]
        })]
      }
      if ("text" in block && block.text !== "") return [this.#chunk({ content: block.text })]
      if ("data" in block && this.#options.extras) {
        return [this.#chunk({ content_blocks: [{ index: event.index, type: block.type, data: block.data }] })]
      }
      return []
    }
    if ("delta" in event && "index" in event) return this.#delta(event.index, event.delta)
    if ("delta" in event) {
      this.#usage = { ...this.#usage, ...definedCounts(event.usage ?? {}) }
      const stopSequence = event.delta.stop_sequence
      const named = this.#options.extras && typeof stopSequence === "string" ? { stop_sequence: stopSequence } : {}
      return [this.#chunk({}, finishReasonOf(event.delta.stop_reason), named)]
    }
    if (event.type === "message_stop" && this.#options.includeUsage) {
      return [{ ...this.#base(), choices: [], usage: usageOf(this.#usage) }]
    }
    return []
  }

  #delta(blockIndex: number, delta: Delta): ReadonlyArray<Chunk> {
    if ("text" in delta) return [this.#chunk({ content: delta.text })]
    if ("partial_json" in delta) {
      const index = this.#toolIndexByBlock.get(blockIndex)
      return index === undefined || delta.partial_json === ""
        ? []
        : [this.#chunk({ tool_calls: [{ index, function: { arguments: delta.partial_json } }] })]
    }
    if (!this.#options.extras) return []
    if ("thinking" in delta) {
      return [this.#chunk({
        reasoning: delta.thinking,
        content_blocks: [{ index: blockIndex, delta: { thinking: delta.thinking } }]
      })]
    }
    if ("signature" in delta) {
      return [this.#chunk({ content_blocks: [{ index: blockIndex, delta: { signature: delta.signature } }] })]
    }
    return []
  }

  #base() {
    return { id: this.#id, object: "chat.completion.chunk", created: this.#options.created, model: this.#model }
  }

  #chunk(delta: Record<string, unknown>, finishReason: string | null = null, extra: object = {}): Chunk {
    return { ...this.#base(), choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason, ...extra }] }
  }
}

/** `message_delta` usage is cumulative, and may leave out counts `message_start` gave. */
const definedCounts = (usage: Usage): Usage =>
  Object.fromEntries(Object.entries(usage).filter(([, value]) => value !== undefined && value !== null))
