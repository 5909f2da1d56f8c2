import { describe, expect, it } from "@effect/vitest"
import { ChatAnswer, ChatRequest, ResponseObject, ResponsesRequest, ResponseStream } from "@switchyard/responses-format"
import { Result } from "effect"

const decode = (body: unknown) => Result.getOrThrow(ResponsesRequest.decode(body))

const chatOf = (body: unknown) => {
  const request = decode(body)
  const items = ChatRequest.inputItems(request).filter((item) => item.type !== "item_reference")
  return ChatRequest.toChat(request, items, 0)
}

describe("request translation", () => {
  it("turns items into one assistant turn per run of calls, each output a tool message", () => {
    const chat = Result.getOrThrow(chatOf({
      model: "m",
      instructions: "Be brief.",
      input: [
        {
          role: "user",
          content: [{ type: "input_text", text: "weather?" }, { type: "input_image", image_url: "data:x" }]
        },
        { type: "function_call", call_id: "c1", name: "w", arguments: "{}" },
        { type: "function_call", call_id: "c2", name: "t", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output: "sunny" },
        { type: "function_call_output", call_id: "c2", output: "noon" }
      ],
      tools: [{ type: "function", name: "w", parameters: { type: "object" }, strict: true }],
      tool_choice: { type: "function", name: "w" },
      text: { format: { type: "json_schema", name: "out", schema: { type: "object" }, strict: true } },
      max_output_tokens: 64,
      reasoning: { effort: "low" }
    }))
    expect(chat).toEqual({
      model: "m",
      messages: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [{ type: "text", text: "weather?" }, { type: "image_url", image_url: { url: "data:x" } }]
        },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "c1", type: "function", function: { name: "w", arguments: "{}" } },
            { id: "c2", type: "function", function: { name: "t", arguments: "{}" } }
          ]
        },
        { role: "tool", tool_call_id: "c1", content: "sunny" },
        { role: "tool", tool_call_id: "c2", content: "noon" }
      ],
      tools: [{ type: "function", function: { name: "w", parameters: { type: "object" }, strict: true } }],
      tool_choice: { type: "function", function: { name: "w" } },
      response_format: { type: "json_schema", json_schema: { name: "out", schema: { type: "object" }, strict: true } },
      max_tokens: 64,
      reasoning_effort: "low"
    })
  })

  it("names what only the vendor's own endpoint knows", () => {
    const failure = (body: unknown) =>
      Result.getFailure(chatOf(body)).pipe((option) => option._tag === "Some" ? option.value.param : null)
    expect(failure({ model: "m", input: "x", tools: [{ type: "web_search" }] })).toBe("tools[0].type")
    expect(failure({ model: "m", input: [{ role: "user", content: [{ type: "input_image", file_id: "f" }] }] }))
      .toBe("input[0].content[0].image_url")
  })
})

describe("answer translation", () => {
  it("orders reasoning, the message, then each call, and says why it stopped", () => {
    const skeleton = ResponseObject.skeleton(decode({ model: "m", input: "x" }), "resp_1", 1, "m")
    const response = ChatAnswer.toResponse({
      model: "m-1",
      choices: [{
        index: 0,
        finish_reason: "length",
        message: {
          role: "assistant",
          content: "Hi",
          reasoning_content: "think",
          tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }]
        }
      }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }
    }, skeleton)
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "message", "function_call"])
    expect(response).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      model: "m-1",
      usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 }
    })
  })
})

describe("the stream state machine", () => {
  it("keeps interleaved parallel calls apart and closes them in output order", () => {
    const machine = new ResponseStream.StreamTranslator(
      ResponseObject.skeleton(decode({ model: "m", input: "x" }), "resp_1", 1, "m")
    )
    const chunk = (delta: object, finish: string | null = null) => ({
      choices: [{ index: 0, delta, finish_reason: finish }]
    })
    const call = (index: number, fields: object) => chunk({ tool_calls: [{ index, ...fields }] })
    const events = [
      ...machine.start(),
      ...machine.chunk(call(0, { id: "a", function: { name: "f", arguments: "{\"x\"" } })),
      ...machine.chunk(call(1, { id: "b", function: { name: "g", arguments: "{\"y\"" } })),
      ...machine.chunk(call(0, { function: { arguments: ":1}" } })),
      ...machine.chunk(call(1, { function: { arguments: ":2}" } })),
      ...machine.chunk(chunk({}, "tool_calls")),
      ...machine.finish()
    ]
    const done = events.filter((event) => event.type === "response.function_call_arguments.done")
    expect(done.map((event) => [event.output_index, event.arguments])).toEqual([[0, "{\"x\":1}"], [1, "{\"y\":2}"]])
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index))
    expect(machine.response()?.output.map((item) => item.type === "function_call" ? item.call_id : "")).toEqual([
      "a",
      "b"
    ])
  })

  it("ends a cut stream with response.failed and an error event carrying the envelope member", () => {
    const machine = new ResponseStream.StreamTranslator(
      ResponseObject.skeleton(decode({ model: "m", input: "x" }), "resp_1", 1, "m")
    )
    machine.start()
    machine.chunk({ choices: [{ index: 0, delta: { content: "Hel" } }] })
    const error = { message: "upstream went away", type: "api_error", code: null, param: null }
    const events = machine.fail(error)
    expect(events.map((event) => event.type)).toEqual(["response.failed", "error"])
    expect(events[1]).toMatchObject({ error })
    expect(machine.response()).toMatchObject({ status: "failed", error: { code: "api_error" } })
  })
})
