/**
 * The internal chat chunk stream as Anthropic's stream events (docs.anthropic.com, "Streaming
 * Messages"), by an explicit state machine. Its state is the message (not started, open,
 * finished) and the one content block open at a time (none, text, thinking, tool use): a chunk
 * that brings another kind of content, or another tool call, stops the open block and starts
 * the next, as Anthropic's own streams never interleave blocks.
 *
 * - `message_start` comes with the first chunk, with the request's estimated input tokens (the
 *   provider reports usage only at the end of a chat stream);
 * - text is `text_delta`, reasoning `thinking_delta` and `signature_delta` (see `ChatReasoning`),
 *   a redacted block one `content_block_start`, a tool call's argument fragments
 *   `input_json_delta` as they arrive;
 * - at the end: `message_delta` with the stop reason and the usage the provider reported (input
 *   tokens included, which overrides the estimate), then `message_stop`;
 * - a stream that fails ends with an `error` event instead, after stopping the open block.
 */
import { ChatReasoning, type Usage } from "@switchyard/protocol"
import { type Cause, Effect, Stream } from "effect"
import { stopReasonOf, usageOf } from "./ChatToMessage.ts"
import type * as MessagesError from "./MessagesError.ts"

/** One event: its name (the SSE `event:` field) is its `type`. */
export type StreamEvent = Readonly<Record<string, unknown>> & { readonly type: string }

type OpenBlock =
  | { readonly kind: "none" }
  | { readonly kind: "text"; readonly index: number }
  | { readonly kind: "thinking"; readonly index: number; readonly source: number }
  | { readonly kind: "tool"; readonly index: number; readonly call: number }

const NONE: OpenBlock = { kind: "none" }

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const stringOf = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

export interface StreamOptions {
  /** The input tokens `message_start` announces before the provider has counted them. */
  readonly estimatedInputTokens: number
  /** The model the client asked for, until the provider names its own. */
  readonly model: string
}

export class MessagesStreamState {
  readonly #options: StreamOptions
  #phase: "waiting" | "open" | "finished" = "waiting"
  #open: OpenBlock = NONE
  #blocks = 0
  /** Anthropic block index of each chat tool call index, for fragments of a call already stopped. */
  readonly #toolBlocks = new Map<number, number>()
  #finishReason: string | null = null
  #stopSequence: string | undefined = undefined
  #usage: Usage.Usage | undefined = undefined

  constructor(options: StreamOptions) {
    this.#options = options
  }

  /** The events one chat chunk adds. */
  next(chunk: unknown): ReadonlyArray<StreamEvent> {
    if (this.#phase === "finished" || !isRecord(chunk)) return []
    const events: Array<StreamEvent> = []
    if (this.#phase === "waiting") events.push(this.#start(chunk))
    if (isRecord(chunk.usage)) this.#usage = usageFields(chunk.usage)
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined
    if (!isRecord(choice)) return events
    const delta = isRecord(choice.delta) ? choice.delta : {}
    this.#reasoning(delta, events)
    const text = stringOf(delta.content) ?? stringOf(delta.refusal)
    if (text !== undefined && text !== "") this.#text(text, events)
    if (Array.isArray(delta.tool_calls)) { for (const call of delta.tool_calls) this.#toolCall(call, events) }
    const finish = stringOf(choice.finish_reason)
    if (finish !== undefined) {
      this.#finishReason = finish
      this.#stopSequence = ChatReasoning.stopSequenceOf(choice)
      this.#stopOpen(events)
    }
    return events
  }

  /** The events that end a stream that completed. */
  end(): ReadonlyArray<StreamEvent> {
    if (this.#phase === "finished") return []
    const events: Array<StreamEvent> = []
    if (this.#phase === "waiting") events.push(this.#start({}))
    this.#stopOpen(events)
    this.#phase = "finished"
    const usage = usageOf(this.#usage)
    events.push(
      {
        type: "message_delta",
        delta: {
          stop_reason: stopReasonOf(this.#finishReason, this.#stopSequence),
          stop_sequence: this.#stopSequence ?? null
        },
        usage
      },
      { type: "message_stop" }
    )
    return events
  }

  /** The events that end a stream that failed: the open block stops, then the error. */
  fail(error: MessagesError.ErrorBody): ReadonlyArray<StreamEvent> {
    if (this.#phase === "finished") return []
    const events: Array<StreamEvent> = []
    this.#stopOpen(events)
    this.#phase = "finished"
    events.push({ type: error.type, error: error.error })
    return events
  }

  #start(chunk: Readonly<Record<string, unknown>>): StreamEvent {
    this.#phase = "open"
    return {
      type: "message_start",
      message: {
        id: stringOf(chunk.id) ?? "msg_gateway",
        type: "message",
        role: "assistant",
        model: stringOf(chunk.model) ?? this.#options.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: this.#options.estimatedInputTokens,
          output_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0
        }
      }
    }
  }

  #reasoning(delta: Readonly<Record<string, unknown>>, events: Array<StreamEvent>): void {
    const fragments = ChatReasoning.blockDeltasOf(delta)
    if (fragments.length === 0) {
      const text = ChatReasoning.textOf(delta)
      if (text !== undefined) this.#thinking(-1, events).push(thinkingDelta(this.#open, text))
      return
    }
    for (const fragment of fragments) {
      if ("data" in fragment) {
        this.#stopOpen(events)
        const index = this.#blocks++
        events.push(
          { type: "content_block_start", index, content_block: { type: "redacted_thinking", data: fragment.data } },
          { type: "content_block_stop", index }
        )
        continue
      }
      this.#thinking(fragment.index, events)
      if (fragment.delta.thinking !== undefined) events.push(thinkingDelta(this.#open, fragment.delta.thinking))
      if (fragment.delta.signature !== undefined) {
        events.push({
          type: "content_block_delta",
          index: indexOf(this.#open),
          delta: { type: "signature_delta", signature: fragment.delta.signature }
        })
      }
    }
  }

  /** The thinking block of the provider's block `source` (-1: reasoning without blocks), opened if need be. */
  #thinking(source: number, events: Array<StreamEvent>): Array<StreamEvent> {
    if (this.#open.kind === "thinking" && this.#open.source === source) return events
    this.#stopOpen(events)
    const index = this.#blocks++
    this.#open = { kind: "thinking", index, source }
    events.push({
      type: "content_block_start",
      index,
      content_block: { type: "thinking", thinking: "", signature: "" }
    })
    return events
  }

  #text(text: string, events: Array<StreamEvent>): void {
    if (this.#open.kind !== "text") {
      this.#stopOpen(events)
      const index = this.#blocks++
      this.#open = { kind: "text", index }
      events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } })
    }
    events.push({ type: "content_block_delta", index: this.#open.index, delta: { type: "text_delta", text } })
  }

  #toolCall(call: unknown, events: Array<StreamEvent>): void {
    if (!isRecord(call) || typeof call.index !== "number") return
    const fn = isRecord(call.function) ? call.function : {}
    const fragment = stringOf(fn.arguments) ?? ""
    let index = this.#open.kind === "tool" && this.#open.call === call.index ? this.#open.index : undefined
    if (index === undefined) index = this.#toolBlocks.get(call.index)
    if (index === undefined) {
      this.#stopOpen(events)
      index = this.#blocks++
      this.#toolBlocks.set(call.index, index)
      this.#open = { kind: "tool", index, call: call.index }
      events.push({
        type: "content_block_start",
        index,
        content_block: {
          type: "tool_use",
          id: stringOf(call.id) ?? `toolu_gateway_${call.index}`,
          name: stringOf(fn.name) ?? "",
          input: {}
        }
      })
    }
    // a fragment of a call already stopped (providers that interleave calls) still reaches its block
    if (fragment !== "") {
      events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: fragment } })
    }
  }

  #stopOpen(events: Array<StreamEvent>): void {
    if (this.#open.kind === "none") return
    events.push({ type: "content_block_stop", index: this.#open.index })
    this.#open = NONE
  }
}

const indexOf = (open: OpenBlock): number => (open.kind === "none" ? 0 : open.index)

const thinkingDelta = (open: OpenBlock, thinking: string): StreamEvent => ({
  type: "content_block_delta",
  index: indexOf(open),
  delta: { type: "thinking_delta", thinking }
})

/** A chunk's usage: the counts chat defines, read leniently (the stream is the provider's). */
const usageFields = (usage: Readonly<Record<string, unknown>>): Usage.Usage => {
  const details = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {}
  const count = (value: unknown) => (typeof value === "number" ? value : 0)
  return {
    prompt_tokens: count(usage.prompt_tokens),
    completion_tokens: count(usage.completion_tokens),
    total_tokens: count(usage.total_tokens),
    prompt_tokens_details: { cached_tokens: count(details.cached_tokens) }
  }
}

/**
 * The Anthropic events of a chat chunk stream: the state machine run over it, a failure (its
 * Anthropic error body from `errorBody`) ending it with an `error` event. An interruption stays
 * one.
 *
 * @example
 * import { MessagesStream } from "@switchyard/messages-format"
 * const events = MessagesStream.toEvents(chunks, { estimatedInputTokens: 12, model: "gpt-4o" }, toErrorBody)
 */
export const toEvents = <E, R>(
  chunks: Stream.Stream<unknown, E, R>,
  options: StreamOptions,
  errorBody: (cause: Cause.Cause<E>) => Effect.Effect<MessagesError.ErrorBody>
): Stream.Stream<StreamEvent, never, R> =>
  Stream.suspend(() => {
    const state = new MessagesStreamState(options)
    return chunks.pipe(
      Stream.map((chunk) => state.next(chunk)),
      Stream.concat(Stream.sync(() => state.end())),
      Stream.catchCause((cause) => Stream.fromEffect(Effect.map(errorBody(cause), (body) => state.fail(body)))),
      Stream.flattenIterable
    )
  })

const encoder = new TextEncoder()

/** An event as server-sent event bytes: `event: <type>` and `data: <json>`. */
export const encodeEvent = (event: StreamEvent): Uint8Array =>
  encoder.encode(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
