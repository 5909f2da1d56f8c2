/**
 * A Responses API request sent to the vendor's own `/responses` endpoint (OpenAI, Azure OpenAI),
 * for a client that spoke that format (GatewayRequest.native). The answer is read back into the
 * chat format the rest of the pipeline reads (guardrails, cache, metering, the Responses edge):
 * a `response` object into a `chat.completion`, and the Responses events into chat chunks by a
 * small state machine (text, refusal and reasoning summary deltas; one tool-call index per
 * `function_call` item, in the order they open; the finish reason and usage at
 * `response.completed` / `response.incomplete`). `response.failed`, an `error` event, or a stream
 * that ends before its last event fails with UpstreamUnreachable, as a cut chat stream does.
 *
 * What the chat format cannot hold is not carried back: the vendor's response and item ids, and
 * the items of its built-in tools.
 */
import { GatewayError, GatewayRequest, GatewayResponse } from "@switchyard/core"
import { Effect, Stream } from "effect"
import { Sse } from "effect/encoding"
import { ensureOk, isEventStream, parseJsonObject, parseLenient } from "../UpstreamCall.ts"
import type { UpstreamClient, UpstreamResponse } from "../UpstreamClient.ts"

type Json = Record<string, unknown>

const isRecord = GatewayRequest.isJsonObject

/**
 * The native body with what the pipeline decided on the chat body (the target's model, its
 * `override_params` for the sampling settings) and the gateway's own storage: the vendor keeps
 * nothing (`store: false`), the gateway stores the response.
 */
export const bodyOf = (native: GatewayRequest.NativeRequest, request: GatewayRequest.GatewayRequest): Json => {
  const body: Json = { ...native.body, store: false, stream: request.stream }
  const chat = request.body
  if (typeof chat.model === "string") body.model = chat.model
  for (const name of ["temperature", "top_p"] as const) if (chat[name] !== undefined) body[name] = chat[name]
  if (typeof chat.max_tokens === "number") body.max_output_tokens = chat.max_tokens
  return body
}

export interface Call {
  readonly provider: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Json
  readonly stream: boolean
}

/** Posts the Responses body and reads the answer in the chat format. */
export const exchange = (
  client: UpstreamClient["Service"],
  call: Call
): Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError> => {
  const posted = client.post({
    provider: call.provider,
    url: call.url,
    headers: call.stream ? { ...call.headers, accept: "text/event-stream" } : call.headers,
    body: JSON.stringify(call.body)
  }).pipe(Effect.flatMap(ensureOk(call.provider)))
  return Effect.flatMap(
    posted,
    (response): Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError> => {
      if (!call.stream) {
        return Effect.flatMap(response.bytes, (raw) => {
          const value = parseLenient(raw)
          return isRecord(value) && value.object === "response"
            ? Effect.succeed(GatewayResponse.json(toChatCompletion(value)))
            : Effect.fail(unreadable(call.provider, "answered with a body that is not a response object"))
        })
      }
      return isEventStream(response)
        ? Effect.succeed(GatewayResponse.stream(chunksOf(call.provider, response)))
        : Effect.andThen(
          response.discard,
          Effect.fail(unreadable(call.provider, "answered a streamed request without events"))
        )
    }
  )
}

const unreadable = (provider: string, message: string) => new GatewayError.UpstreamUnreachable({ provider, message })

const usageOf = (usage: unknown): Json | undefined => {
  if (!isRecord(usage)) return undefined
  const input = typeof usage.input_tokens === "number" ? usage.input_tokens : 0
  const output = typeof usage.output_tokens === "number" ? usage.output_tokens : 0
  const cached = isRecord(usage.input_tokens_details) ? usage.input_tokens_details.cached_tokens : undefined
  const reasoning = isRecord(usage.output_tokens_details) ? usage.output_tokens_details.reasoning_tokens : undefined
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: typeof usage.total_tokens === "number" ? usage.total_tokens : input + output,
    prompt_tokens_details: { cached_tokens: typeof cached === "number" ? cached : 0 },
    completion_tokens_details: { reasoning_tokens: typeof reasoning === "number" ? reasoning : 0 }
  }
}

const finishReasonOf = (response: Json, calls: boolean): string => {
  const reason = isRecord(response.incomplete_details) ? response.incomplete_details.reason : undefined
  if (reason === "max_output_tokens") return "length"
  if (reason === "content_filter") return "content_filter"
  return calls ? "tool_calls" : "stop"
}

const texts = (parts: unknown, type: string, field: string): string =>
  Array.isArray(parts)
    ? parts.filter((part) => isRecord(part) && part.type === type).map((part) => String(part[field] ?? "")).join("")
    : ""

/** A complete `response` as a `chat.completion`. */
export const toChatCompletion = (response: Json): Json => {
  const output = Array.isArray(response.output) ? response.output.filter(isRecord) : []
  let content = ""
  let refusal = ""
  let reasoning = ""
  const toolCalls: Array<Json> = []
  for (const item of output) {
    if (item.type === "message") {
      content += texts(item.content, "output_text", "text")
      refusal += texts(item.content, "refusal", "refusal")
    } else if (item.type === "reasoning") reasoning += texts(item.summary, "summary_text", "text")
    else if (item.type === "function_call") {
      toolCalls.push({
        id: item.call_id,
        type: "function",
        function: { name: item.name, arguments: typeof item.arguments === "string" ? item.arguments : "" }
      })
    }
  }
  const message: Json = { role: "assistant", content: content === "" && toolCalls.length > 0 ? null : content }
  if (refusal !== "") message.refusal = refusal
  if (toolCalls.length > 0) message.tool_calls = toolCalls
  if (reasoning !== "") message.reasoning_content = reasoning
  const usage = usageOf(response.usage)
  return {
    id: response.id,
    object: "chat.completion",
    created: response.created_at,
    model: response.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(response, toolCalls.length > 0) }],
    ...(usage !== undefined ? { usage } : {})
  }
}

/** The Responses events of a stream as chat chunks (see the module comment). */
const chunksOf = (
  provider: string,
  response: UpstreamResponse
): Stream.Stream<GatewayRequest.JsonObject, GatewayError.GatewayError> =>
  Stream.suspend(() => {
    const machine = new EventsToChunks()
    const cut = () => unreadable(provider, "the stream was cut")
    return response.stream.pipe(
      Stream.decodeText,
      Stream.pipeThroughChannel(Sse.decode()),
      Stream.mapError(cut),
      Stream.mapEffect((event) => {
        const data = parseJsonObject(event.data)
        if (data === undefined) return Effect.fail(unreadable(provider, "the stream carried an event that is not JSON"))
        if (data.type === "response.failed" || data.type === "error") {
          return Effect.fail(unreadable(provider, `the response failed: ${failureOf(data)}`))
        }
        return Effect.succeed(machine.event(data))
      }),
      Stream.flatMap(Stream.fromIterable),
      Stream.concat(Stream.suspend(() => (machine.ended ? Stream.empty : Stream.fail(cut()))))
    )
  })

const failureOf = (event: Json): string => {
  const error = isRecord(event.response) ? event.response.error : isRecord(event.error) ? event.error : event
  return isRecord(error) && typeof error.message === "string" ? error.message : "no reason given"
}

class EventsToChunks {
  ended = false
  #id = "chatcmpl-responses"
  #model = ""
  #created = 0
  #started = false
  /** Tool-call indexes by the `function_call` item's id, in the order the items opened. */
  readonly #calls = new Map<string, number>()

  event(event: Json): Array<Json> {
    switch (event.type) {
      case "response.created":
        if (isRecord(event.response)) {
          this.#id = String(event.response.id ?? this.#id)
          this.#model = String(event.response.model ?? "")
          this.#created = typeof event.response.created_at === "number" ? event.response.created_at : 0
        }
        return []
      case "response.output_text.delta":
        return this.#delta({ content: String(event.delta ?? "") })
      case "response.refusal.delta":
        return this.#delta({ refusal: String(event.delta ?? "") })
      case "response.reasoning_summary_text.delta":
        return this.#delta({ reasoning_content: String(event.delta ?? "") })
      case "response.output_item.added": {
        const item = isRecord(event.item) ? event.item : {}
        if (item.type !== "function_call") return []
        const index = this.#calls.size
        this.#calls.set(String(item.id), index)
        const fn = { name: item.name, arguments: "" }
        return this.#delta({ tool_calls: [{ index, id: item.call_id, type: "function", function: fn }] })
      }
      case "response.function_call_arguments.delta": {
        const index = this.#calls.get(String(event.item_id))
        if (index === undefined) return []
        return this.#delta({ tool_calls: [{ index, function: { arguments: String(event.delta ?? "") } }] })
      }
      case "response.completed":
      case "response.incomplete": {
        this.ended = true
        const response = isRecord(event.response) ? event.response : {}
        const usage = usageOf(response.usage)
        const last = this.#chunk({}, finishReasonOf(response, this.#calls.size > 0))
        return usage === undefined ? [last] : [last, { ...this.#base(), choices: [], usage }]
      }
      default:
        return []
    }
  }

  #delta(delta: Json): Array<Json> {
    const first = this.#started ? [] : [this.#chunk({ role: "assistant", content: "" }, null)]
    this.#started = true
    return [...first, this.#chunk(delta, null)]
  }

  #base(): Json {
    return { id: this.#id, object: "chat.completion.chunk", created: this.#created, model: this.#model }
  }

  #chunk(delta: Json, finishReason: string | null): Json {
    return { ...this.#base(), choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] }
  }
}
