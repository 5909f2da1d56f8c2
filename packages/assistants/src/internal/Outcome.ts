/**
 * What one pipeline call of a run came to: an answer (whole, or put back together from a stream
 * whose text went to the run's followers as it arrived), function calls, a guardrail's denial, or
 * a failure with the `last_error` code the common assistants format uses.
 */
import { GatewayError, type GatewayRequest } from "@switchyard/core"
import { ChatCompletion, ChatCompletionChunk, type ChatTool, type ThreadRun } from "@switchyard/protocol"
import { Effect, Option, Schema, Stream } from "effect"

export const decodeCompletion = Schema.decodeUnknownOption(ChatCompletion.ChatCompletion)
export const decodeChunk = Schema.decodeUnknownOption(ChatCompletionChunk.ChatCompletionChunk)

/** A stream of a run that someone follows: the text goes to them as the provider writes it. */
export interface Live {
  /** Announces the assistant's message, before its first text. */
  readonly begin: Effect.Effect<void>
  readonly delta: (text: string) => Effect.Effect<void>
}

/** A streamed answer put back together: its text, its function calls by index, and its usage. */
export const collect = (chunks: Stream.Stream<GatewayRequest.JsonObject, GatewayError.GatewayError>, live: Live) =>
  Effect.gen(function*() {
    let text = ""
    let finishReason: string | null = null
    let usage: ThreadRun.RunUsage | null = null
    const calls: Array<{ id: string; name: string; arguments: string }> = []
    yield* Stream.runForEach(chunks, (raw) =>
      Effect.gen(function*() {
        const chunk = decodeChunk(raw)
        if (Option.isNone(chunk)) return
        const reported = chunk.value.usage
        if (reported !== undefined && reported !== null) {
          usage = {
            prompt_tokens: reported.prompt_tokens,
            completion_tokens: reported.completion_tokens,
            total_tokens: reported.total_tokens
          }
        }
        const choice = chunk.value.choices[0]
        if (choice === undefined) return
        finishReason = choice.finish_reason ?? finishReason
        for (const delta of choice.delta.tool_calls ?? []) {
          const call = calls[delta.index] ?? { id: "", name: "", arguments: "" }
          call.id = delta.id ?? call.id
          call.name += delta.function?.name ?? ""
          call.arguments += delta.function?.arguments ?? ""
          calls[delta.index] = call
        }
        const piece = choice.delta.content ?? ""
        if (piece === "") return
        if (text === "") yield* live.begin
        text += piece
        yield* live.delta(piece)
      }))
    const toolCalls: ReadonlyArray<ChatTool.ToolCall> = calls.filter((call) => call.name !== "").map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments }
    }))
    return { text, finishReason, usage, toolCalls }
  })
/** A guardrail's denial as the guardrails package raises it: the stage tells input from output. */
export const isDenial = Schema.is(
  Schema.Struct({ _tag: Schema.Literal("HookDenied"), stage: Schema.Literals(["before", "after"]) })
)

/** A function call as a `tool_calls` step records it; `output` is null until it is submitted. */
export const StepToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("function"),
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String, output: Schema.NullOr(Schema.String) })
})
export const decodeStepToolCalls = Schema.decodeUnknownOption(Schema.Array(StepToolCall))

/** Usage over the rounds of a run: each pipeline call adds its own. */
export const addUsage = (
  total: ThreadRun.RunUsage | null,
  more: ThreadRun.RunUsage | null
): ThreadRun.RunUsage | null =>
  total === null || more === null ? more ?? total : {
    prompt_tokens: total.prompt_tokens + more.prompt_tokens,
    completion_tokens: total.completion_tokens + more.completion_tokens,
    total_tokens: total.total_tokens + more.total_tokens
  }

export type Outcome =
  | {
    readonly _tag: "Answered"
    readonly text: string
    /** The message and its text already went to the run's followers as the provider wrote it. */
    readonly announced: boolean
    readonly finishReason: string | null
    readonly usage: ThreadRun.RunUsage | null
  }
  | { readonly _tag: "Denied"; readonly usage: null }
  | {
    readonly _tag: "ToolCalls"
    readonly calls: ReadonlyArray<ChatTool.ToolCall>
    readonly usage: ThreadRun.RunUsage | null
  }
  | { readonly _tag: "Failed"; readonly code: string; readonly message: string }

/**
 * What a failed pipeline call tells the run: a provider's 429, a rate-limit policy (429) and a
 * spent usage budget (412) are `rate_limit_exceeded`; every other failure is a server error.
 */
export const failureOf = (error: GatewayError.GatewayError): Outcome => {
  if (isDenial(error) && error.stage === "after") return { _tag: "Denied", usage: null }
  const answer = GatewayError.toHttp(error)
  if (isDenial(error)) return { _tag: "Failed", code: "invalid_prompt", message: error.message }
  return {
    _tag: "Failed",
    code: answer.status === 429 || answer.status === 412 ? "rate_limit_exceeded" : "server_error",
    message: `${answer.status}: ${answer.body.error.message}`
  }
}
