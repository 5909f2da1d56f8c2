import { assert, describe, it } from "@effect/vitest"
import { ChatCompletionRequest, ChatRequestView } from "@switchyard/protocol"
import { Result } from "effect"
import fc from "fast-check"

const base = { model: "claude-sonnet-4", messages: [{ role: "user", content: "Hello" }] }

const view = (body: unknown): ChatRequestView.ChatRequestView => {
  const result = ChatRequestView.decode(body)
  if (Result.isFailure(result)) {
    return assert.fail(`expected a view of ${JSON.stringify(body)}: ${result.failure.message}`)
  }
  return result.success
}

/** The view as plain JSON, to compare whole values. */
const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

// Members the view reads in some places, used as unknown members everywhere else: the edge lets
// them through with any value wherever its schema does not declare them.
const extraKeys = fc.constantFrom(
  "tool_calls",
  "tool_call_id",
  "function_call",
  "name",
  "content_blocks",
  "cache_control",
  "json_schema",
  "top_k",
  "x_extra"
)
const withExtras = <A extends object>(arbitrary: fc.Arbitrary<A>) =>
  fc.tuple(arbitrary, fc.dictionary(extraKeys, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 })).map((
    [value, extras]
  ) => ({ ...extras, ...value }))

const text = fc.string({ maxLength: 8 })
const textPart = withExtras(fc.record({ type: fc.constant("text"), text }))
const userPart = fc.oneof(
  textPart,
  withExtras(fc.record({ type: fc.constant("image_url"), image_url: fc.record({ url: fc.webUrl() }) })),
  withExtras(fc.record({ type: fc.constant("input_audio"), input_audio: fc.record({ data: text, format: text }) })),
  withExtras(fc.record({
    type: fc.constant("file"),
    file: fc.record({ file_data: text, file_id: text, filename: text }, { requiredKeys: [] })
  }))
)
const assistantPart = fc.oneof(textPart, withExtras(fc.record({ type: fc.constant("refusal"), refusal: text })))
const textContent = fc.oneof(text, fc.array(textPart, { maxLength: 2 }))
const toolCall = fc.record({
  id: text,
  type: fc.constant("function"),
  function: fc.record({ name: text, arguments: text })
})

const message = withExtras(fc.oneof(
  fc.record({ role: fc.constantFrom("system", "developer"), content: textContent }),
  fc.record({ role: fc.constant("user"), content: fc.oneof(text, fc.array(userPart, { maxLength: 3 })) }),
  fc.record({
    role: fc.constant("assistant"),
    content: fc.oneof(text, fc.array(assistantPart, { maxLength: 2 }), fc.constant(null)),
    tool_calls: fc.array(toolCall, { minLength: 1, maxLength: 2 })
  }, { requiredKeys: ["role", "content"] }),
  fc.record({ role: fc.constant("tool"), content: textContent, tool_call_id: text }),
  fc.record({ role: fc.constant("function"), content: fc.oneof(text, fc.constant(null)), name: text })
))

const functionDefinition = fc.record({
  name: text,
  description: text,
  parameters: fc.constant({ type: "object" })
}, { requiredKeys: ["name"] })

const fields = fc.record({
  model: fc.string({ minLength: 1, maxLength: 8 }),
  messages: fc.array(message, { minLength: 1, maxLength: 4 }),
  temperature: fc.oneof(fc.double({ min: 0, max: 2, noNaN: true }), fc.constant(null)),
  top_p: fc.double({ min: 0, max: 1, noNaN: true }),
  n: fc.integer({ min: 1, max: 128 }),
  max_tokens: fc.integer({ min: 1, max: 100_000 }),
  seed: fc.integer(),
  stop: fc.oneof(text, fc.array(text, { maxLength: 4 }), fc.constant(null)),
  tools: fc.array(withExtras(fc.record({ type: fc.constant("function"), function: functionDefinition })), {
    maxLength: 2
  }),
  tool_choice: fc.oneof(
    fc.constantFrom("none", "auto", "required"),
    fc.record({ type: fc.constant("function"), function: fc.record({ name: text }) })
  ),
  functions: fc.array(functionDefinition, { minLength: 1, maxLength: 2 }),
  function_call: fc.oneof(fc.constantFrom("none", "auto"), fc.record({ name: text })),
  response_format: withExtras(fc.oneof(
    fc.record({ type: fc.constantFrom("text", "json_object") }),
    fc.record({
      type: fc.constant("json_schema"),
      json_schema: fc.record({ name: text, schema: fc.constant({ type: "object" }) }, { requiredKeys: ["name"] })
    })
  )),
  thinking: fc.record({ type: fc.constant("enabled"), budget_tokens: fc.integer({ min: 1, max: 10_000 }) }),
  stream: fc.boolean(),
  logprobs: fc.boolean(),
  parallel_tool_calls: fc.boolean(),
  user: text
}, { requiredKeys: ["model", "messages"] })

// stream_options only with stream: true, the one rule between members that would refuse most bodies
const chatBody = withExtras(
  fc.tuple(fields, fc.option(fc.record({ include_usage: fc.boolean() }))).map(([body, streamOptions]) =>
    streamOptions === null ? body : { ...body, stream: true, stream_options: streamOptions }
  )
)

describe("ChatRequestView", () => {
  describe("what it keeps", () => {
    it("keeps every member an adapter reads, as sent", () => {
      const body = {
        model: "m",
        messages: [{ role: "user", content: "hi" }],
        max_tokens: 100,
        max_completion_tokens: 200,
        n: 1,
        temperature: 0.5,
        top_p: 0.9,
        top_k: 40,
        seed: 7,
        presence_penalty: 0.1,
        frequency_penalty: -0.1,
        stop: ["END"],
        logprobs: false,
        logit_bias: { "50256": -100 },
        response_format: { type: "json_schema", json_schema: { name: "a", schema: { type: "object" } } },
        thinking: { type: "enabled", budget_tokens: 1024 },
        tools: [{ type: "function", function: { name: "f", description: "d", parameters: { type: "object" } } }],
        tool_choice: { type: "function", function: { name: "f" } },
        parallel_tool_calls: false,
        functions: [{ name: "g" }],
        function_call: { name: "g" },
        user: "u-1",
        stream_options: { include_usage: true }
      }
      assert.deepStrictEqual(json(view(body)), {
        ...body,
        response_format: { type: "json_schema", json_schema: { schema: { type: "object" } } },
        tools: [{ function: { name: "f", description: "d", parameters: { type: "object" } } }],
        tool_choice: { function: { name: "f" } }
      })
    })

    it("keeps each message's role, content, tool calls and the ids that answer them", () => {
      const messages = [
        { role: "system", content: "Be brief." },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", function: { name: "f", arguments: "{}" } }] },
        { role: "tool", content: "42", tool_call_id: "c1" },
        { role: "assistant", content: null, function_call: { name: "f", arguments: "{}" } },
        { role: "function", content: "42", name: "f" }
      ]
      assert.deepStrictEqual(json(view({ ...base, messages }).messages), messages)
    })

    it("keeps text, image, audio, file and refusal parts with the members adapters read", () => {
      const content = [
        { type: "text", text: "What is this?", cache_control: { type: "ephemeral" } },
        { type: "image_url", image_url: { url: "https://x/y.png" }, cache_control: { type: "ephemeral" } },
        { type: "input_audio", input_audio: { data: "AAA=", format: "wav" } },
        { type: "file", file: { file_data: "data:application/pdf;base64,AA==", filename: "a.pdf" } },
        { type: "refusal", refusal: "No." }
      ]
      assert.deepStrictEqual(
        json(view({ ...base, messages: [{ role: "user", content }] }).messages[0]?.content),
        content
      )
    })

    it("keeps a part of a type it does not know by its type, for the adapter to refuse", () => {
      const message = { role: "user", content: [{ type: "video_url", video_url: { url: "https://x/v.mp4" } }] }
      assert.deepStrictEqual(json(view({ ...base, messages: [message] }).messages[0]?.content), [{ type: "video_url" }])
    })

    it("keeps the thinking blocks of content_blocks and leaves out anything else in it", () => {
      const thinking: ChatRequestView.ThinkingBlock = { type: "thinking", thinking: "Let me see.", signature: "sig" }
      const redacted: ChatRequestView.ThinkingBlock = { type: "redacted_thinking", data: "xyz" }
      const message = {
        role: "assistant",
        content: "4",
        content_blocks: [thinking, { type: "text", text: "4" }, 17, redacted, { type: "thinking" }]
      }
      assert.deepStrictEqual(view({ ...base, messages: [message] }).messages[0]?.content_blocks, [thinking, redacted])
    })

    it("keeps top_k as sent, since the edge never checked it", () => {
      assert.strictEqual(view({ ...base, top_k: "many" }).top_k, "many")
    })

    it("accepts null wherever an adapter reads null as absent", () => {
      const nulls = [
        "max_tokens",
        "temperature",
        "stop",
        "response_format",
        "thinking",
        "tools",
        "tool_choice",
        "functions",
        "function_call",
        "user",
        "stream_options"
      ]
      const body = Object.fromEntries(nulls.map((key) => [key, null]))
      assert.deepStrictEqual(json(view({ ...base, ...body })), { ...base, ...body })
    })
  })

  describe("what it ignores", () => {
    it("leaves out members no adapter reads", () => {
      const body = { ...base, stream: true, metadata: { team: "a" }, reasoning_effort: "high", store: true }
      assert.deepStrictEqual(json(view(body)), base)
    })

    it("leaves out unknown members of messages, parts and tools", () => {
      const body = {
        ...base,
        messages: [{ role: "user", content: [{ type: "text", text: "hi", lang: "en" }], x_trace: 1 }],
        tools: [{ type: "function", function: { name: "f", strict: true }, x: 1 }]
      }
      const decoded = view(body)
      assert.deepStrictEqual(json(decoded.messages), [{ role: "user", content: [{ type: "text", text: "hi" }] }])
      assert.deepStrictEqual(json(decoded.tools), [{ function: { name: "f" } }])
    })

    it("leaves out a message member that does not fit on a role the edge does not check it for", () => {
      const messages = [
        { role: "user", content: "hi", tool_calls: "none", tool_call_id: 5, function_call: 1 },
        { role: "tool", content: "42", tool_call_id: "c1", name: 3 },
        { role: "assistant", content: "ok", content_blocks: "none" }
      ]
      assert.deepStrictEqual(json(view({ ...base, messages }).messages), [
        { role: "user", content: "hi" },
        { role: "tool", content: "42", tool_call_id: "c1" },
        { role: "assistant", content: "ok" }
      ])
    })

    it("leaves out json_schema beside a response format of another type", () => {
      const decoded = view({ ...base, response_format: { type: "text", json_schema: "none" } })
      assert.deepStrictEqual(decoded.response_format, { type: "text" })
    })
  })

  describe("what it refuses", () => {
    const refused: ReadonlyArray<readonly [string, unknown, string | null]> = [
      ["a body that is not an object", "hi", null],
      ["a body without messages", { model: "m" }, "messages"],
      ["a body without a model", { messages: [] }, "model"],
      ["a read member of the wrong type", { ...base, temperature: "hot" }, "temperature"],
      [
        "content that is neither text nor parts",
        { ...base, messages: [{ role: "user", content: 5 }] },
        "messages[0].content"
      ],
      [
        "a part without a type",
        { ...base, messages: [{ role: "user", content: [{ text: "hi" }] }] },
        "messages[0].content[0].type"
      ]
    ]
    for (const [name, body, param] of refused) {
      it(`refuses ${name}, naming the member`, () => {
        const result = ChatRequestView.decode(body)
        if (Result.isSuccess(result)) return assert.fail(`expected ${JSON.stringify(body)} to be refused`)
        assert.strictEqual(result.failure.param, param, result.failure.message)
      })
    }
  })

  describe("properties", () => {
    it("has a view of every body the full chat schema accepts, with its messages in order", () => {
      fc.assert(
        fc.property(chatBody, (body) => {
          fc.pre(Result.isSuccess(ChatCompletionRequest.decodeResult(body)))
          const result = ChatRequestView.decode(body)
          return Result.isSuccess(result) &&
            result.success.messages.map((message) => message.role).join() ===
              body.messages.map((message) => message.role).join()
        }),
        { numRuns: 500 }
      )
    })
  })
})
