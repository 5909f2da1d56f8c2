import { assert, describe, it } from "@effect/vitest"
import { ChatCompletionRequest } from "@switchyard/protocol"
import { Effect, Result } from "effect"
import fc from "fast-check"
import { accepts, rejects } from "./support/Decode.ts"

const decode = ChatCompletionRequest.decodeResult
const base = { model: "gpt-4o", messages: [{ role: "user", content: "Hello" }] }
const withField = (field: string, value: unknown) => ({ ...base, [field]: value })

describe("ChatCompletionRequest", () => {
  describe("valid bodies", () => {
    const valid: ReadonlyArray<readonly [string, unknown]> = [
      ["the smallest body", base],
      ["every role", {
        ...base,
        messages: [
          { role: "system", content: "Be brief." },
          { role: "developer", content: [{ type: "text", text: "No emojis." }] },
          {
            role: "user",
            content: [{ type: "text", text: "What is this?" }, {
              type: "image_url",
              image_url: { url: "https://x/y.png", detail: "low" }
            }]
          },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }]
          },
          { role: "tool", content: "42", tool_call_id: "c1" },
          { role: "assistant", content: null, function_call: { name: "f", arguments: "{}" } },
          { role: "function", content: "42", name: "f" }
        ]
      }],
      ["audio and file parts", {
        ...base,
        messages: [{
          role: "user",
          content: [
            { type: "input_audio", input_audio: { data: "AAA=", format: "wav" } },
            { type: "file", file: { file_id: "file-1" } }
          ]
        }]
      }],
      ["tools and a forced tool", {
        ...base,
        tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" }, strict: true } }],
        tool_choice: { type: "function", function: { name: "get_weather" } },
        parallel_tool_calls: false
      }],
      ["deprecated functions", { ...base, functions: [{ name: "f" }], function_call: { name: "f" } }],
      ["every response format", {
        ...base,
        response_format: {
          type: "json_schema",
          json_schema: { name: "answer", schema: { type: "object" }, strict: true }
        }
      }],
      ["json_object format", { ...base, response_format: { type: "json_object" } }],
      ["nulls where allowed", {
        ...base,
        temperature: null,
        top_p: null,
        n: null,
        seed: null,
        stop: null,
        stream: null,
        logprobs: null,
        top_logprobs: null,
        max_tokens: null,
        frequency_penalty: null,
        presence_penalty: null
      }],
      ["streaming with usage", { ...base, stream: true, stream_options: { include_usage: true } }],
      ["thinking", { ...base, thinking: { type: "enabled", budget_tokens: 1024 } }],
      ["logprobs with top_logprobs", { ...base, logprobs: true, top_logprobs: 5 }]
    ]
    for (const [name, body] of valid) {
      it(`accepts ${name}`, () => {
        accepts(decode, body)
      })
    }
  })

  it("keeps unknown top-level members for the provider", () => {
    const body = accepts(decode, { ...base, metadata: { a: "b" }, reasoning_effort: "low", store: true })
    assert.deepStrictEqual(body["reasoning_effort"], "low")
    assert.deepStrictEqual(body["metadata"], { a: "b" })
    assert.deepStrictEqual(body["store"], true)
  })

  it("keeps unknown members of messages and parts", () => {
    const body = accepts(decode, {
      ...base,
      messages: [{ role: "user", content: [{ type: "text", text: "x", cache_control: { type: "ephemeral" } }] }]
    })
    assert.deepStrictEqual(body.messages, [{
      role: "user",
      content: [{ type: "text", text: "x", cache_control: { type: "ephemeral" } }]
    }])
  })

  describe("invalid bodies", () => {
    const invalid: ReadonlyArray<readonly [string, unknown, string | null, string]> = [
      ["a body that is not an object", [], null, "must be an object"],
      ["a missing model", { messages: base.messages }, "model", "is required"],
      ["an empty model", withField("model", ""), "model", "must not be empty"],
      ["missing messages", { model: "m" }, "messages", "is required"],
      ["an empty messages array", withField("messages", []), "messages", "must have at least 1 item"],
      [
        "an unknown role",
        withField("messages", [{ role: "robot", content: "x" }]),
        "messages[0].role",
        "must be one of \"system\", \"developer\", \"user\", \"assistant\", \"tool\", \"function\" (got \"robot\")"
      ],
      ["a message without role", withField("messages", [{ content: "x" }]), "messages[0].role", "is required"],
      ["a message that is not an object", withField("messages", ["hi"]), "messages[0]", "must be a message object"],
      [
        "a tool message without tool_call_id",
        withField("messages", [{ role: "tool", content: "x" }]),
        "messages[0].tool_call_id",
        "is required"
      ],
      [
        "a function message without name",
        withField("messages", [{ role: "function", content: "x" }]),
        "messages[0].name",
        "is required"
      ],
      [
        "a null assistant content without calls",
        withField("messages", [{ role: "assistant", content: null }]),
        "messages[0].content",
        "is required unless tool_calls or function_call is given"
      ],
      [
        "a null user content",
        withField("messages", [{ role: "user", content: null }]),
        "messages[0].content",
        "must be a string or an array"
      ],
      [
        "an unknown part type",
        withField("messages", [{ role: "user", content: [{ type: "video" }] }]),
        "messages[0].content[0].type",
        "must be one of \"text\", \"image_url\", \"input_audio\", \"file\""
      ],
      [
        "an image part on a system message",
        withField("messages", [{ role: "system", content: [{ type: "image_url", image_url: { url: "u" } }] }]),
        "messages[0].content[0].type",
        "must be one of \"text\""
      ],
      [
        "a bad image detail",
        withField("messages", [{
          role: "user",
          content: [{ type: "image_url", image_url: { url: "u", detail: "max" } }]
        }]),
        "messages[0].content[0].image_url.detail",
        "must be one of \"auto\", \"low\", \"high\""
      ],
      [
        "a string temperature",
        withField("temperature", "hot"),
        "temperature",
        "must be a number or null (got a string)"
      ],
      ["top_logprobs without logprobs", withField("top_logprobs", 2), "top_logprobs", "requires logprobs to be true"],
      [
        "top_logprobs with logprobs false",
        { ...base, logprobs: false, top_logprobs: 2 },
        "top_logprobs",
        "requires logprobs to be true"
      ],
      [
        "stream_options without stream",
        withField("stream_options", { include_usage: true }),
        "stream_options",
        "is only allowed when stream is true"
      ],
      [
        "stream_options with stream false",
        { ...base, stream: false, stream_options: {} },
        "stream_options",
        "is only allowed when stream is true"
      ],
      [
        "a bad response format",
        withField("response_format", { type: "yaml" }),
        "response_format.type",
        "must be one of \"text\", \"json_object\", \"json_schema\""
      ],
      [
        "a json_schema format without its schema object",
        withField("response_format", { type: "json_schema" }),
        "response_format.json_schema",
        "is required"
      ],
      [
        "a json_schema without name",
        withField("response_format", { type: "json_schema", json_schema: {} }),
        "response_format.json_schema.name",
        "is required"
      ],
      ["thinking disabled", withField("thinking", { type: "disabled" }), "thinking.type", "must be \"enabled\""],
      ["a non-function tool", withField("tools", [{ type: "retrieval" }]), "tools[0].type", "must be \"function\""],
      [
        "a tool without name",
        withField("tools", [{ type: "function", function: {} }]),
        "tools[0].function.name",
        "is required"
      ],
      [
        "a bad tool_choice",
        withField("tool_choice", "always"),
        "tool_choice",
        "must be one of \"none\", \"auto\", \"required\""
      ],
      [
        "a bad function_call",
        withField("function_call", "required"),
        "function_call",
        "must be one of \"none\", \"auto\""
      ],
      [
        "a non-boolean parallel_tool_calls",
        withField("parallel_tool_calls", "yes"),
        "parallel_tool_calls",
        "must be a boolean"
      ],
      ["a non-string user", withField("user", 7), "user", "must be a string (got 7)"],
      [
        "a non-numeric logit bias",
        withField("logit_bias", { "50256": "x" }),
        "logit_bias[\"50256\"]",
        "must be a number"
      ]
    ]
    for (const [name, body, param, rule] of invalid) {
      it(`rejects ${name}`, () => {
        rejects(decode, body, param, rule)
      })
    }
  })

  describe("bounds of section 8, at and just past each edge", () => {
    const bounds: ReadonlyArray<readonly [string, ReadonlyArray<unknown>, ReadonlyArray<unknown>, string]> = [
      ["temperature", [0, 2], [-0.0001, 2.0001], "must be between 0 and 2"],
      ["top_p", [0, 1], [-0.0001, 1.0001], "must be between 0 and 1"],
      ["frequency_penalty", [-2, 2], [-2.0001, 2.0001], "must be between -2 and 2"],
      ["presence_penalty", [-2, 2], [-2.0001, 2.0001], "must be between -2 and 2"],
      ["n", [1, 128], [0, 129], "must be between 1 and 128"],
      ["max_tokens", [1], [0], "must be at least 1"],
      ["max_completion_tokens", [1], [0], "must be at least 1"],
      ["seed", [-(2 ** 63), 2 ** 63, 0], [2 ** 64, -(2 ** 64)], "must be between"]
    ]
    for (const [field, ok, bad, rule] of bounds) {
      for (const value of ok) it(`accepts ${field} = ${value}`, () => void accepts(decode, withField(field, value)))
      for (const value of bad) {
        it(`rejects ${field} = ${value}`, () => void rejects(decode, withField(field, value), field, `${rule}`))
      }
    }
    it("rejects n that is not an integer", () =>
      void rejects(decode, withField("n", 1.5), "n", "must be an integer (got 1.5)"))
    it("rejects a seed that is not an integer", () =>
      void rejects(decode, withField("seed", 0.5), "seed", "must be an integer"))
    it("accepts top_logprobs 0 and 20", () => {
      accepts(decode, { ...base, logprobs: true, top_logprobs: 0 })
      accepts(decode, { ...base, logprobs: true, top_logprobs: 20 })
    })
    it("rejects top_logprobs -1 and 21", () => {
      rejects(
        decode,
        { ...base, logprobs: true, top_logprobs: -1 },
        "top_logprobs",
        "must be between 0 and 20 (got -1)"
      )
      rejects(
        decode,
        { ...base, logprobs: true, top_logprobs: 21 },
        "top_logprobs",
        "must be between 0 and 20 (got 21)"
      )
    })
    it("accepts logit_bias -100 and 100", () => void accepts(decode, withField("logit_bias", { "1": -100, "2": 100 })))
    it("rejects logit_bias -100.5 and 100.5", () => {
      rejects(
        decode,
        withField("logit_bias", { "1": -100.5 }),
        "logit_bias[\"1\"]",
        "must be between -100 and 100 (got -100.5)"
      )
      rejects(
        decode,
        withField("logit_bias", { "2": 100.5 }),
        "logit_bias[\"2\"]",
        "must be between -100 and 100 (got 100.5)"
      )
    })
    it("accepts 4 stop sequences and rejects 5", () => {
      accepts(decode, withField("stop", ["a", "b", "c", "d"]))
      accepts(decode, withField("stop", "\n"))
      rejects(decode, withField("stop", ["a", "b", "c", "d", "e"]), "stop", "must have at most 4 items")
    })
    const tools = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ type: "function", function: { name: `f${i}` } }))
    it("accepts 128 tools and rejects 129", () => {
      accepts(decode, withField("tools", tools(128)))
      rejects(decode, withField("tools", tools(129)), "tools", "must have at most 128 items")
    })
    const functions = (count: number) => Array.from({ length: count }, (_, i) => ({ name: `f${i}` }))
    it("accepts 1 and 128 functions, rejects 0 and 129", () => {
      accepts(decode, withField("functions", functions(1)))
      accepts(decode, withField("functions", functions(128)))
      rejects(decode, withField("functions", []), "functions", "must have at least 1 item")
      rejects(decode, withField("functions", functions(129)), "functions", "must have at most 128 items")
    })
    it("accepts thinking budget 1 and rejects 0", () => {
      accepts(decode, withField("thinking", { type: "enabled", budget_tokens: 1 }))
      rejects(
        decode,
        withField("thinking", { type: "enabled", budget_tokens: 0 }),
        "thinking.budget_tokens",
        "must be at least 1"
      )
    })
  })

  describe("properties", () => {
    it("accepts any temperature in [0, 2]", () => {
      fc.assert(
        fc.property(
          fc.double({ min: 0, max: 2, noNaN: true }),
          (t) => Result.isSuccess(decode(withField("temperature", t)))
        )
      )
    })
    it("rejects any temperature outside [0, 2], naming the field", () => {
      const outside = fc.double().filter((t) => !(t >= 0 && t <= 2))
      fc.assert(fc.property(outside, (t) => {
        const result = decode(withField("temperature", t))
        return Result.isFailure(result) && result.failure.param === "temperature"
      }))
    })
    it("accepts any integer n in [1, 128] and rejects any other integer", () => {
      fc.assert(
        fc.property(
          fc.integer({ min: -1000, max: 1000 }),
          (n) => Result.isSuccess(decode(withField("n", n))) === (n >= 1 && n <= 128)
        )
      )
    })
    it("keeps any unknown member it is given", () => {
      // The `x_` prefix keeps generated names clear of the declared fields.
      const key = fc.string().map((k) => `x_${k}`)
      fc.assert(fc.property(key, fc.jsonValue(), (k, v) => {
        const result = decode({ ...base, [k]: v })
        return Result.isSuccess(result) && JSON.stringify(result.success[k]) === JSON.stringify(v)
      }))
    })
  })

  it.effect("decode fails with InvalidInput in the error channel", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(ChatCompletionRequest.decode(withField("temperature", 3)))
      assert.strictEqual(error._tag, "InvalidInput")
      assert.strictEqual(error.param, "temperature")
      assert.strictEqual(error.message, "temperature: must be between 0 and 2 (got 3)")
    }))

  it("decodes a typical 3-message request in well under 20 µs", () => {
    const body = {
      model: "gpt-4o-mini",
      temperature: 0.7,
      max_tokens: 256,
      messages: [
        { role: "system", content: "You are a helpful assistant." },
        { role: "user", content: "What is the capital of France?" },
        { role: "assistant", content: "Paris." }
      ]
    }
    for (let i = 0; i < 5_000; i++) decode(body)
    const runs = 50_000
    const start = performance.now()
    for (let i = 0; i < runs; i++) decode(body)
    const micros = ((performance.now() - start) * 1000) / runs
    console.log(`ChatCompletionRequest decode: ${micros.toFixed(2)} µs`)
    // A generous ceiling: it catches an order-of-magnitude regression without flaking on a busy machine.
    assert.isBelow(micros, 100)
  })
})
