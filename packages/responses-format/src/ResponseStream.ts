/**
 * The stream translation: chat chunks (`chat.completion.chunk`, as every provider adapter streams
 * them) in, Responses events out, as an explicit state machine. Each output item goes through
 * `added` → its part(s) `added` → deltas → `done` events → `output_item.done`; every event
 * carries the next `sequence_number`, from 0.
 *
 * States of an item: open (deltas go to it) and closed. Reasoning and message items are closed
 * when another item opens after them, as the vendor streams one item at a time; function calls
 * stay open until the end, because providers interleave the argument fragments of parallel
 * calls (by their chat `index`). The end closes every open item in output order and sends
 * `response.completed` (or `response.incomplete` on `length` / `content_filter`) with the usage;
 * a stream cut by an upstream failure ends with `response.failed` and an `error` event.
 *
 * @example
 * import { ResponseStream } from "@switchyard/responses-format"
 * const machine = new ResponseStream.StreamTranslator(skeleton)
 * const events = [...machine.start(), ...chunks.flatMap((chunk) => machine.chunk(chunk)), ...machine.finish()]
 */
import { ChatReasoning } from "@switchyard/protocol"
import { isRecord } from "./internal/Records.ts"
import { addBlockDelta, added, type Item, outputOf } from "./internal/StreamItem.ts"
import * as ResponseObject from "./ResponseObject.ts"

/** One event of the stream: `event: <type>` and `data: <the object>`. */
export interface Event {
  readonly type: string
  readonly sequence_number: number
  readonly [key: string]: unknown
}

/** The gateway's error envelope member (`error`) a cut stream ends with. */
export interface StreamError {
  readonly message: string
  readonly type: string
  readonly code: string | null
  readonly param: string | null
}

export class StreamTranslator {
  readonly #skeleton: ResponseObject.Response
  readonly #items: Array<Item> = []
  /** Function calls by their chat `index`. */
  readonly #calls = new Map<number, Extract<Item, { kind: "function_call" }>>()
  #sequence = 0
  #model: string
  #finishReason: string | null = null
  #usage: unknown = undefined
  #final: ResponseObject.Response | undefined

  constructor(skeleton: ResponseObject.Response) {
    this.#skeleton = skeleton
    this.#model = skeleton.model
  }

  /** `response.created` and `response.in_progress`. */
  start(): Array<Event> {
    const response = this.#snapshot("in_progress")
    return [this.#event("response.created", { response }), this.#event("response.in_progress", { response })]
  }

  /** The events one chat chunk makes. */
  chunk(chunk: unknown): Array<Event> {
    if (!isRecord(chunk)) return []
    if (typeof chunk.model === "string" && chunk.model !== "") this.#model = chunk.model
    if (isRecord(chunk.usage)) this.#usage = chunk.usage
    const choice = Array.isArray(chunk.choices) ? chunk.choices.find((c) => isRecord(c) && (c.index ?? 0) === 0) : null
    if (!isRecord(choice)) return []
    const events: Array<Event> = []
    const delta = isRecord(choice.delta) ? choice.delta : {}
    const reasoning = ChatReasoning.textOf(delta)
    const blockDeltas = ChatReasoning.blockDeltasOf(delta)
    if (reasoning !== undefined || blockDeltas.length > 0) this.#reasoning(events, reasoning ?? "", blockDeltas)
    if (typeof delta.content === "string" && delta.content !== "") this.#text(events, delta.content)
    if (typeof delta.refusal === "string" && delta.refusal !== "") this.#refusal(events, delta.refusal)
    if (Array.isArray(delta.tool_calls)) { for (const call of delta.tool_calls) this.#toolCall(events, call) }
    if (typeof choice.finish_reason === "string") this.#finishReason = choice.finish_reason
    return events
  }

  /** The end of a complete stream: every open item closed, then the final response. */
  finish(): Array<Event> {
    const events: Array<Event> = []
    const ending = ResponseObject.ending(this.#finishReason)
    for (const item of this.#items) this.#close(events, item, ending.status)
    const response: ResponseObject.Response = {
      ...this.#snapshot(ending.status),
      incomplete_details: ending.incomplete_details,
      usage: ResponseObject.usageOf(this.#usage)
    }
    this.#final = response
    const type = ending.status === "completed" ? "response.completed" : "response.incomplete"
    events.push(this.#event(type, { response }))
    return events
  }

  /**
   * The end of a stream cut by a failure: `response.failed` with what was made so far, then an
   * `error` event holding the gateway's error envelope member (`error`), as the last event.
   */
  fail(error: StreamError): Array<Event> {
    const response: ResponseObject.Response = {
      ...this.#snapshot("failed"),
      error: { code: error.code ?? error.type, message: error.message },
      usage: ResponseObject.usageOf(this.#usage)
    }
    this.#final = response
    return [this.#event("response.failed", { response }), this.#event("error", { error })]
  }

  /** The response as it ended (after `finish` or `fail`), to store. */
  response(): ResponseObject.Response | undefined {
    return this.#final
  }

  #event(type: string, fields: Record<string, unknown>): Event {
    return { type, sequence_number: this.#sequence++, ...fields }
  }

  #snapshot(status: ResponseObject.Status): ResponseObject.Response {
    return {
      ...this.#skeleton,
      status,
      model: this.#model,
      output: status === "in_progress" ? [] : this.#items.map((item) => outputOf(item, status))
    }
  }

  #open<I extends Item>(events: Array<Event>, item: I): I {
    // one reasoning or message item streams at a time; calls stay open (see the module comment)
    for (const other of this.#items) {
      if (other.open && other.kind !== "function_call") this.#close(events, other, "completed")
    }
    this.#items.push(item)
    events.push(this.#event("response.output_item.added", { output_index: item.index, item: added(item) }))
    return item
  }

  #current<K extends "message" | "reasoning">(kind: K): Extract<Item, { kind: K }> | undefined {
    const last = this.#items.findLast((item) => item.kind === kind)
    return last !== undefined && last.open ? (last as Extract<Item, { kind: K }>) : undefined
  }

  #reasoning(events: Array<Event>, text: string, blockDeltas: ReadonlyArray<ChatReasoning.BlockDelta>): void {
    let item = this.#current("reasoning")
    if (item === undefined) {
      item = this.#open(events, {
        kind: "reasoning",
        id: ResponseObject.newId("rs"),
        index: this.#items.length,
        text: "",
        blocks: [],
        open: true
      })
      const part = { type: "summary_text", text: "" }
      events.push(this.#event("response.reasoning_summary_part.added", { ...this.#at(item), summary_index: 0, part }))
    }
    for (const fragment of blockDeltas) addBlockDelta(item.blocks, fragment)
    if (text === "") return
    item.text += text
    events.push(
      this.#event("response.reasoning_summary_text.delta", { ...this.#at(item), summary_index: 0, delta: text })
    )
  }

  #message(events: Array<Event>): Extract<Item, { kind: "message" }> {
    const current = this.#current("message")
    if (current !== undefined) return current
    const item = this.#open(events, {
      kind: "message",
      id: ResponseObject.newId("msg"),
      index: this.#items.length,
      text: "",
      refusal: undefined,
      open: true
    })
    const part = { type: "output_text", text: "", annotations: [], logprobs: [] }
    events.push(this.#event("response.content_part.added", { ...this.#at(item), content_index: 0, part }))
    return item
  }

  #text(events: Array<Event>, text: string): void {
    const item = this.#message(events)
    item.text += text
    events.push(
      this.#event("response.output_text.delta", { ...this.#at(item), content_index: 0, delta: text, logprobs: [] })
    )
  }

  #refusal(events: Array<Event>, text: string): void {
    const item = this.#message(events)
    if (item.refusal === undefined) {
      item.refusal = ""
      const part = { type: "refusal", refusal: "" }
      events.push(this.#event("response.content_part.added", { ...this.#at(item), content_index: 1, part }))
    }
    item.refusal += text
    events.push(this.#event("response.refusal.delta", { ...this.#at(item), content_index: 1, delta: text }))
  }

  #toolCall(events: Array<Event>, call: unknown): void {
    if (!isRecord(call)) return
    const index = typeof call.index === "number" ? call.index : 0
    const fn = isRecord(call.function) ? call.function : {}
    let item = this.#calls.get(index)
    if (item === undefined) {
      item = this.#open(events, {
        kind: "function_call",
        id: ResponseObject.newId("fc"),
        index: this.#items.length,
        callId: typeof call.id === "string" && call.id !== "" ? call.id : ResponseObject.newId("fc"),
        name: typeof fn.name === "string" ? fn.name : "",
        args: "",
        open: true
      })
      this.#calls.set(index, item)
    }
    const fragment = typeof fn.arguments === "string" ? fn.arguments : ""
    if (fragment === "") return
    item.args += fragment
    events.push(this.#event("response.function_call_arguments.delta", { ...this.#at(item), delta: fragment }))
  }

  #at(item: Item): { item_id: string; output_index: number } {
    return { item_id: item.id, output_index: item.index }
  }

  #close(events: Array<Event>, item: Item, status: ResponseObject.Status): void {
    if (!item.open) return
    item.open = false
    const at = this.#at(item)
    if (item.kind === "message") {
      const text = { type: "output_text", text: item.text, annotations: [], logprobs: [] }
      events.push(this.#event("response.output_text.done", { ...at, content_index: 0, text: item.text, logprobs: [] }))
      events.push(this.#event("response.content_part.done", { ...at, content_index: 0, part: text }))
      if (item.refusal !== undefined) {
        events.push(this.#event("response.refusal.done", { ...at, content_index: 1, refusal: item.refusal }))
        const part = { type: "refusal", refusal: item.refusal }
        events.push(this.#event("response.content_part.done", { ...at, content_index: 1, part }))
      }
    } else if (item.kind === "reasoning") {
      const part = { type: "summary_text", text: item.text }
      events.push(
        this.#event("response.reasoning_summary_text.done", { ...at, summary_index: 0, text: item.text })
      )
      events.push(this.#event("response.reasoning_summary_part.done", { ...at, summary_index: 0, part }))
    } else {
      events.push(
        this.#event("response.function_call_arguments.done", { ...at, name: item.name, arguments: item.args })
      )
    }
    events.push(this.#event("response.output_item.done", { output_index: item.index, item: outputOf(item, status) }))
  }
}
