/** A counting fake of a leaf's upstream, and requests to send it. */
import { type Dispatch, GatewayError, type GatewayRequest, GatewayResponse } from "@switchyard/core"
import { Duration, Effect, Stream } from "effect"

export type Answer =
  | { readonly _tag: "Json"; readonly body: unknown; readonly status?: number }
  | { readonly _tag: "Stream"; readonly chunks: ReadonlyArray<GatewayRequest.JsonObject>; readonly cut?: boolean }
  | { readonly _tag: "Fail"; readonly status: number }

export const completion = (content: string): GatewayRequest.JsonObject => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "gpt-4o",
  choices: [{ index: 0, message: { role: "assistant", content }, logprobs: null, finish_reason: "stop" }],
  usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 }
})

const chunk = (choices: ReadonlyArray<GatewayRequest.JsonObject>, extra?: GatewayRequest.JsonObject) => ({
  id: "chatcmpl-2",
  object: "chat.completion.chunk",
  created: 1_700_000_000,
  model: "gpt-4o",
  choices,
  ...extra
})

/** A streamed answer: "Hel" + "lo", a tool call in two deltas, then finish and usage. */
export const streamedChunks: ReadonlyArray<GatewayRequest.JsonObject> = [
  chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
  chunk([{ index: 0, delta: { content: "Hel" }, finish_reason: null }]),
  chunk([{ index: 0, delta: { content: "lo" }, finish_reason: null }]),
  chunk([{
    index: 0,
    delta: {
      tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_", arguments: "{\"a\":" } }]
    },
    finish_reason: null
  }]),
  chunk([{
    index: 0,
    delta: { tool_calls: [{ index: 0, function: { name: "weather", arguments: "1}" } }] },
    finish_reason: null
  }]),
  chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]),
  chunk([], { usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } })
]

export class Upstream {
  calls = 0
  answer: Answer = { _tag: "Json", body: completion("first") }
  /** How long each call takes (on the clock in use). */
  latency: Duration.Duration = Duration.zero

  readonly dispatch: Dispatch.Dispatch = () =>
    Effect.suspend(() => {
      this.calls++
      const answer = this.answer
      const reply: Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError> = answer._tag === "Json"
        ? Effect.succeed(GatewayResponse.json(answer.body, { status: answer.status ?? 200 }))
        : answer._tag === "Fail"
        ? Effect.fail(
          new GatewayError.UpstreamStatus({ provider: "openai", status: answer.status, body: {}, headers: {} })
        )
        : Effect.succeed(GatewayResponse.stream(
          answer.cut === true
            ? Stream.concat(
              Stream.fromIterable(answer.chunks.slice(0, 2)),
              Stream.fail(new GatewayError.UpstreamUnreachable({ provider: "openai", message: "reset" }))
            )
            : Stream.fromIterable(answer.chunks)
        ))
      return Duration.isZero(this.latency) ? reply : Effect.delay(reply, this.latency)
    })
}

export const request = (options: {
  readonly body?: GatewayRequest.JsonObject
  readonly stream?: boolean
  readonly headers?: Readonly<Record<string, string>>
  readonly workspace?: string
}): GatewayRequest.GatewayRequest => ({
  endpoint: "chat.completions",
  body: options.body ?? { model: "gpt-4o", messages: [{ role: "user", content: "Hello there" }] },
  stream: options.stream ?? false,
  context: {
    traceId: "t",
    spanId: "s",
    parentSpanId: undefined,
    spanName: undefined,
    metadata: {},
    principal: { keyId: "k", workspaceId: options.workspace ?? "ws-1", scopes: new Set() },
    headers: options.headers ?? {},
    receivedAt: 0
  }
})

export const ask = (content: string, extra?: GatewayRequest.JsonObject): GatewayRequest.JsonObject => ({
  model: "gpt-4o",
  messages: [{ role: "system", content: "You are terse." }, { role: "user", content }],
  ...extra
})
