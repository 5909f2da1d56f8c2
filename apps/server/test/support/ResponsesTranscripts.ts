/**
 * Golden transcripts for /v1/responses: chat streams as an OpenAI-format provider sends them
 * (recorded shapes: one role chunk, content or tool-call fragments, a finish chunk, the usage
 * chunk of `stream_options.include_usage`), and the Responses event sequence each must become.
 */
import { Behaviour } from "@switchyard/fake-providers"

type Delta = Record<string, unknown>

const chunk = (delta: Delta, finishReason: string | null = null) => ({
  id: "chatcmpl-golden",
  object: "chat.completion.chunk",
  created: 1_760_000_000,
  model: "gpt-4o-mini-2024-07-18",
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }]
})

const usage = (prompt: number, completion: number, reasoning = 0) => ({
  id: "chatcmpl-golden",
  object: "chat.completion.chunk",
  created: 1_760_000_000,
  model: "gpt-4o-mini-2024-07-18",
  choices: [],
  usage: {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reasoning }
  }
})

/** The chunks as the provider's SSE body, `[DONE]` included. */
export const sse = (chunks: ReadonlyArray<unknown>) =>
  Behaviour.json(
    200,
    chunks.map((value) => `data: ${JSON.stringify(value)}\n\n`).join("") + "data: [DONE]\n\n",
    { "content-type": "text/event-stream" }
  )

const call = (index: number, fields: Delta) => ({ tool_calls: [{ index, ...fields }] })

export const text = [
  chunk({ role: "assistant", content: "" }),
  chunk({ content: "Hello" }),
  chunk({ content: ", world" }),
  chunk({}, "stop"),
  usage(11, 3)
]

/** One call whose arguments arrive in three fragments. */
export const functionCall = [
  chunk({
    role: "assistant",
    content: null,
    ...call(0, { id: "call_weather", type: "function", function: { name: "get_weather", arguments: "" } })
  }),
  chunk(call(0, { function: { arguments: "{\"ci" } })),
  chunk(call(0, { function: { arguments: "ty\": \"Ly" } })),
  chunk(call(0, { function: { arguments: "on\"}" } })),
  chunk({}, "tool_calls"),
  usage(40, 18)
]

/** Two calls in one turn, the second's fragments after the first's. */
export const parallelCalls = [
  chunk({
    role: "assistant",
    content: null,
    ...call(0, { id: "call_a", type: "function", function: { name: "get_weather", arguments: "" } })
  }),
  chunk(call(0, { function: { arguments: "{\"city\":" } })),
  chunk(call(0, { function: { arguments: "\"Paris\"}" } })),
  chunk(call(1, { id: "call_b", type: "function", function: { name: "get_time", arguments: "" } })),
  chunk(call(1, { function: { arguments: "{\"zone\":\"CET\"}" } })),
  chunk({}, "tool_calls"),
  usage(52, 30)
]

/** Reasoning text (`reasoning_content`, as reasoning providers stream it) before the answer. */
export const reasoning = [
  chunk({ role: "assistant", content: "" }),
  chunk({ reasoning_content: "The user wants " }),
  chunk({ reasoning_content: "a number." }),
  chunk({ content: "42" }),
  chunk({}, "stop"),
  usage(20, 25, 21)
]

/** Cut by the token limit. */
export const length = [
  chunk({ role: "assistant", content: "" }),
  chunk({ content: "Once upon a" }),
  chunk({}, "length"),
  usage(9, 4)
]

/** The event types each transcript must become, in order. */
export const expectedEvents = {
  text: [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed"
  ],
  functionCall: [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.output_item.done",
    "response.completed"
  ],
  parallelCalls: [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.delta",
    "response.output_item.added",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.output_item.done",
    "response.function_call_arguments.done",
    "response.output_item.done",
    "response.completed"
  ],
  reasoning: [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.reasoning_summary_part.added",
    "response.reasoning_summary_text.delta",
    "response.reasoning_summary_text.delta",
    "response.reasoning_summary_text.done",
    "response.reasoning_summary_part.done",
    "response.output_item.done",
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed"
  ],
  length: [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.incomplete"
  ]
}
