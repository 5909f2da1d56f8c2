/**
 * POST /v1/messages end to end, with Anthropic's own client (`@anthropic-ai/sdk`): through the
 * gateway to the Anthropic fake (native) and to the OpenAI fake (translated). The client must
 * assemble from the gateway's answer the same Message it assembles from the vendor's.
 */
import Anthropic from "@anthropic-ai/sdk"
import { Behaviour, FakeAnthropic, FakeOpenAI } from "@switchyard/fake-providers"
import { ChatToMessage } from "@switchyard/messages-format"
import OpenAI from "openai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as GatewayProcess from "./support/GatewayProcess.ts"
import {
  ANTHROPIC_KEY,
  direct,
  toolResultTurn,
  useAnthropicAndGateway,
  user,
  weather
} from "./support/MessagesFixtures.ts"
import { goldenTranscript, sseOf } from "./support/MessagesTranscripts.ts"

const servers = useAnthropicAndGateway()
let openai: FakeOpenAI.FakeOpenAI

beforeAll(async () => {
  openai = await FakeOpenAI.start()
})
beforeEach(() => openai.reset())
afterAll(async () => {
  await openai?.close()
})

/** Anthropic's client with the provider's key as its own and the gateway key in `x-gateway-api-key`. */
const viaGateway = (provider: "anthropic" | "openai", headers: Record<string, string> = {}) =>
  new Anthropic({
    apiKey: provider === "anthropic" ? ANTHROPIC_KEY : "sk-openai",
    baseURL: servers.gateway.baseUrl,
    maxRetries: 0,
    defaultHeaders: {
      "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
      "x-gateway-provider": provider,
      "x-gateway-custom-host": provider === "anthropic" ? servers.anthropic.baseUrl : openai.baseUrl,
      ...headers
    }
  })

/** Anthropic's client sending only the gateway key, as its own; the provider comes from a config. */
const withGatewayKeyOnly = (headers: Record<string, string>) =>
  new Anthropic({
    apiKey: GatewayProcess.ADMIN_KEY,
    baseURL: servers.gateway.baseUrl,
    maxRetries: 0,
    defaultHeaders: headers
  })

/** Ids and signatures carry the fake's reply ordinal, which differs between the two calls. */
const normalized = (message: unknown): unknown =>
  JSON.parse(JSON.stringify(message).replace(/(msg_fake_|toolu_fake_|sig-fake-)\d+/g, "$1N"))

describe("/v1/messages to an Anthropic target", () => {
  const cases: ReadonlyArray<readonly [string, Anthropic.MessageCreateParamsNonStreaming, FakeAnthropic.Message?]> = [
    ["text", { model: "claude-sonnet-4-5", max_tokens: 64, messages: [user("hello there")] }],
    [
      "parallel tool use",
      { model: "claude-sonnet-4-5", max_tokens: 64, messages: [user("weather?")], tools: [weather] },
      FakeAnthropic.message({
        content: [
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_a", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_b", name: "get_weather", input: { city: "Rome", days: [1, 2] } }
        ],
        stop_reason: "tool_use"
      })
    ],
    [
      "thinking",
      {
        model: "claude-sonnet-4-5",
        max_tokens: 2048,
        messages: [user("why?")],
        thinking: { type: "enabled", budget_tokens: 1024 }
      }
    ],
    ["a stop sequence", {
      model: "claude-sonnet-4-5",
      max_tokens: 64,
      messages: [user("one two ### three")],
      stop_sequences: ["###"]
    }],
    ["max_tokens", { model: "claude-sonnet-4-5", max_tokens: 2, messages: [user("one two three four")] }]
  ]

  for (const [name, params, reply] of cases) {
    it(`assembles the same Message as from Anthropic itself: ${name}, plain and streamed`, async () => {
      const run = async (client: Anthropic) => {
        if (reply !== undefined) servers.anthropic.enqueue(reply)
        const plain = await client.messages.create(params)
        if (reply !== undefined) servers.anthropic.enqueue(reply)
        const streamed = await client.messages.stream(params).finalMessage()
        return { plain: normalized(plain), streamed: normalized(streamed) }
      }
      const vendor = await run(direct(servers.anthropic))
      const sentDirect = servers.anthropic.requests.map((request) => request.body)
      const ours = await run(viaGateway("anthropic"))
      expect(ours.plain).toEqual(vendor.plain)
      expect(ours.streamed).toEqual(vendor.streamed)
      // the Anthropic target got the request in its own shape, as the client sent it
      const sentOurs = servers.anthropic.requests.slice(sentDirect.length).map((request) => request.body)
      expect(sentOurs).toEqual(sentDirect)
    })
  }

  it("sends the client's own body: thinking blocks with their signatures, tool results as they came, is_error", async () => {
    const params = toolResultTurn("claude-sonnet-4-5")
    await direct(servers.anthropic).messages.create(params)
    await viaGateway("anthropic").messages.create(params)
    const [sentDirect, sentOurs] = servers.anthropic.requests.map((request) => request.body)
    expect(Object(sentOurs).messages).toEqual(Object(sentDirect).messages)
  })
})

describe("/v1/messages to an Anthropic target through a config", () => {
  const config = (extra: Record<string, unknown>) =>
    JSON.stringify({ provider: "anthropic", api_key: ANTHROPIC_KEY, custom_host: servers.anthropic.baseUrl, ...extra })
  const params = { model: "claude-sonnet-4-5", max_tokens: 64, messages: [user("hello")], temperature: 0.9 }

  it("lays the config's override_params over the client's own body", async () => {
    const client = withGatewayKeyOnly({ "x-gateway-config": config({ override_params: { temperature: 0.1 } }) })
    await client.messages.create(params)
    expect(servers.anthropic.requests.at(-1)?.body).toEqual({ ...params, temperature: 0.1 })
  })

  it("translates the chat body once a stage rewrote the conversation", async () => {
    const mutator = {
      id: "prefix",
      type: "mutator",
      checks: [{ id: "default.addPrefix", parameters: { prefix: "Be kind. " } }]
    }
    const client = withGatewayKeyOnly({ "x-gateway-config": config({ before_request_hooks: [mutator] }) })
    await client.messages.create(params)
    expect(Object(servers.anthropic.requests.at(-1)?.body).messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Be kind. hello" }] }
    ])
  })
})

describe("/v1/messages to an OpenAI-format target", () => {
  const transcripts = ["text", "tool-use-split-arguments", "parallel-tool-calls", "stop-max-tokens"] as const
  const params = { model: "gpt-4o", max_tokens: 256, messages: [user("hello")], tools: [weather] }

  for (const name of transcripts) {
    it(`assembles from the translated stream the Message of the vendor's own stream: ${name}`, async () => {
      const sse = sseOf(goldenTranscript(name).chunks)
      const replay = Behaviour.json(200, sse, { "content-type": "text/event-stream" })
      // what OpenAI's own client assembles from the vendor's stream, as a Message
      openai.enqueue(replay)
      const vendor = await new OpenAI({ apiKey: "sk-openai", baseURL: openai.baseUrl, maxRetries: 0 }).chat.completions
        .stream({ model: "gpt-4o", messages: [{ role: "user", content: "hello" }], stream: true })
        .finalChatCompletion()
      openai.enqueue(replay)
      const stream = viaGateway("openai").messages.stream(params)
      const events: Array<Anthropic.MessageStreamEvent> = []
      // the client goes on to fill message_start's message as its snapshot: each event is kept as it came
      stream.on("streamEvent", (event) => events.push(structuredClone(event)))
      const ours = await stream.finalMessage()
      const { usage: _, ...expected } = ChatToMessage.toMessage(vendor) ?? {}
      expect(ours).toMatchObject(expected)
      expect(ours.usage).toMatchObject({
        input_tokens: vendor.usage?.prompt_tokens,
        output_tokens: vendor.usage?.completion_tokens
      })
      // the golden event sequence, but for message_start's estimate, which depends on the request
      const golden = goldenTranscript(name).events.map(withoutEstimate)
      expect(events.map(withoutEstimate)).toEqual(golden)
      expect(events[0]?.type === "message_start" && events[0].message.usage.input_tokens).toBeGreaterThan(0)
    })
  }

  it("translates the request: system, tools, tool choice, stop sequences, max_tokens, usage asked for", async () => {
    openai.enqueue(Behaviour.json(200, sseOf(goldenTranscript("text").chunks), { "content-type": "text/event-stream" }))
    await viaGateway("openai").messages.stream({
      model: "gpt-4o",
      max_tokens: 100,
      system: "Be brief.",
      messages: [user("hi")],
      tools: [weather],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
      stop_sequences: ["###"],
      temperature: 0.2
    }).finalMessage()
    expect(openai.requests.at(-1)?.body).toEqual({
      model: "gpt-4o",
      max_tokens: 100,
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: [{ type: "text", text: "hi" }] }],
      tools: [{
        type: "function",
        function: { name: "get_weather", description: "Weather", parameters: weather.input_schema }
      }],
      tool_choice: "required",
      parallel_tool_calls: false,
      stop: ["###"],
      temperature: 0.2,
      stream: true,
      stream_options: { include_usage: true }
    })
  })

  it("answers a plain request with the Message of the chat answer", async () => {
    const message = await viaGateway("openai").messages.create({
      model: "gpt-4o",
      max_tokens: 64,
      messages: [user("hi")]
    })
    expect(message).toMatchObject({ type: "message", role: "assistant", stop_reason: "end_turn" })
    expect(message.content[0]?.type).toBe("text")
    expect(message.usage.input_tokens).toBeGreaterThan(0)
  })

  it("ends a cut stream with an error event the client raises", async () => {
    const transcript = goldenTranscript("cut-stream")
    openai.enqueue(
      Behaviour.json(200, sseOf(transcript.chunks, { done: false }), { "content-type": "text/event-stream" })
    )
    const response = await fetch(`${servers.gateway.baseUrl}/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${GatewayProcess.ADMIN_KEY}`,
        "x-gateway-config": JSON.stringify({ provider: "openai", api_key: "sk-openai", custom_host: openai.baseUrl })
      },
      body: JSON.stringify({ model: "gpt-4o", max_tokens: 64, messages: [user("hi")], stream: true })
    })
    const text = await response.text()
    const names = [...text.matchAll(/^event: (.+)$/gm)].map((match) => match[1])
    expect(names).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "error"
    ])
    expect(text).toContain(`"type":"api_error"`)
    openai.enqueue(Behaviour.cutStream(2))
    await expect(
      viaGateway("openai").messages.stream({ model: "gpt-4o", max_tokens: 64, messages: [user("hi")] }).finalMessage()
    )
      .rejects.toThrow()
  })
})

describe("/v1/messages errors, in Anthropic's shape", () => {
  it("answers 400 invalid_request_error naming the field", async () => {
    const error = await viaGateway("openai").messages
      .create({ model: "gpt-4o", messages: [user("hi")] } as unknown as Anthropic.MessageCreateParamsNonStreaming)
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.BadRequestError)
    expect(Object(error).error).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "max_tokens: is required" }
    })
  })

  it("answers 401 authentication_error for a key the gateway does not know", async () => {
    const client = new Anthropic({ apiKey: "not-a-key", baseURL: servers.gateway.baseUrl, maxRetries: 0 })
    const error = await client.messages.create({ model: "m", max_tokens: 5, messages: [user("hi")] })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError)
    expect(Object(error).error.error.type).toBe("authentication_error")
  })

  it("passes an upstream 429 on as rate_limit_error", async () => {
    openai.enqueue(Behaviour.json(429, { error: { message: "slow down", type: "rate_limit" } }))
    const error = await viaGateway("openai").messages.create({ model: "gpt-4o", max_tokens: 5, messages: [user("hi")] })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.RateLimitError)
    expect(Object(error).error.error.type).toBe("rate_limit_error")
  })
})

describe("/v1/messages runs the gateway pipeline", () => {
  const config = (extra: Record<string, unknown>) =>
    JSON.stringify({ provider: "openai", api_key: "sk-openai", custom_host: openai.baseUrl, ...extra })

  it("retries as the config says", async () => {
    openai.enqueue(Behaviour.json(500, { error: { message: "boom" } }))
    const client = viaGateway("openai", {
      "x-gateway-config": config({ retry: { attempts: 1, on_status_codes: [500] } })
    })
    const message = await client.messages.create({ model: "gpt-4o", max_tokens: 5, messages: [user("retry me")] })
    expect(message.type).toBe("message")
    expect(openai.requests).toHaveLength(2)
  })

  it("answers a repeat from the cache", async () => {
    const body = { model: "gpt-4o", max_tokens: 5, messages: [user(`cache me ${Date.now()}`)] }
    const client = withGatewayKeyOnly({ "x-gateway-config": config({ cache: { mode: "simple", max_age: 60 } }) })
    const first = await client.messages.create(body).withResponse()
    const second = await client.messages.create(body).withResponse()
    expect(first.response.headers.get("x-gateway-cache-status")).toBe("MISS")
    expect(second.response.headers.get("x-gateway-cache-status")).toBe("HIT")
    expect(second.data).toEqual(first.data)
    expect(openai.requests).toHaveLength(1)
  })
})

describe("/v1/messages keys", () => {
  const send = (headers: Record<string, string>) =>
    fetch(`${servers.gateway.baseUrl}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 16, messages: [user("hi")] })
    })

  it("takes the one key in x-api-key as the gateway key, the provider's credentials from the config", async () => {
    const config = JSON.stringify({
      provider: "anthropic",
      api_key: ANTHROPIC_KEY,
      custom_host: servers.anthropic.baseUrl
    })
    const answer = await send({ "x-api-key": GatewayProcess.ADMIN_KEY, "x-gateway-config": config })
    expect(answer.status).toBe(200)
    expect(servers.anthropic.requests.at(-1)?.headers["x-api-key"]).toBe(ANTHROPIC_KEY)
  })

  it("takes x-api-key as the provider's key beside x-gateway-api-key", async () => {
    const answer = await send({
      "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
      "x-api-key": ANTHROPIC_KEY,
      "x-gateway-provider": "anthropic",
      "x-gateway-custom-host": servers.anthropic.baseUrl
    })
    expect(answer.status).toBe(200)
    expect(servers.anthropic.requests.at(-1)?.headers["x-api-key"]).toBe(ANTHROPIC_KEY)
  })

  it("answers 401 in Anthropic's shape without any key", async () => {
    const answer = await send({})
    expect(answer.status).toBe(401)
    expect(await answer.json()).toMatchObject({ type: "error", error: { type: "authentication_error" } })
  })
})

describe("/v1/messages to an OpenAI model, fitted to it from the catalog", () => {
  const sent = () => Object(openai.requests.at(-1)?.body)
  // streamed, as Claude Code asks: Anthropic's client refuses a plain request with budgets this large
  const send = (params: Anthropic.MessageCreateParamsNonStreaming) =>
    viaGateway("openai").messages.stream(params).finalMessage()

  it("lowers max_tokens to the model's output limit (Claude Code's 32000 to gpt-4o's 16,384)", async () => {
    await send({ model: "gpt-4o", max_tokens: 32_000, messages: [user("hi")] })
    expect(sent().max_tokens).toBe(16_384)
    await send({ model: "gpt-4o", max_tokens: 1_000, messages: [user("hi")] })
    expect(sent().max_tokens).toBe(1_000)
  })

  it("sends a reasoning model max_completion_tokens and the thinking budget as reasoning_effort", async () => {
    const ask = (budget: number) =>
      send({
        model: "o3-mini",
        max_tokens: 200_000,
        thinking: { type: "enabled", budget_tokens: budget },
        messages: [user("think")]
      })
    const efforts: Array<unknown> = []
    for (const budget of [4_000, 10_000, 31_999]) {
      await ask(budget)
      efforts.push(sent().reasoning_effort)
      expect(sent()).toMatchObject({ max_completion_tokens: 100_000 })
      expect(sent()).not.toHaveProperty("max_tokens")
      expect(sent()).not.toHaveProperty("thinking")
    }
    expect(efforts).toEqual(["low", "medium", "high"])
  })

  it("leaves a chat client's max_tokens as it came, and models the catalog does not know", async () => {
    const chat = new OpenAI({
      apiKey: "sk-openai",
      baseURL: `${servers.gateway.baseUrl}/v1`,
      maxRetries: 0,
      defaultHeaders: {
        "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
        "x-gateway-provider": "openai",
        "x-gateway-custom-host": openai.baseUrl
      }
    })
    await chat.chat.completions.create({
      model: "gpt-4o",
      max_tokens: 32_000,
      messages: [{ role: "user", content: "hi" }]
    })
    expect(sent().max_tokens).toBe(32_000)
    await send({ model: "my-finetune", max_tokens: 32_000, messages: [user("hi")] })
    expect(sent().max_tokens).toBe(32_000)
  })
})

describe("/v1/messages/count_tokens", () => {
  const counted = {
    model: "claude-sonnet-4-5",
    system: "Be brief.",
    messages: [user("How many tokens is this sentence?")]
  }

  it("asks an Anthropic target for its own count, with the target's key, as the vendor answers it", async () => {
    const vendor = await direct(servers.anthropic).messages.countTokens(counted)
    const ours = await viaGateway("anthropic").messages.countTokens(counted)
    expect(ours).toEqual(vendor)
    // the fake's count (words and three per message), not the gateway's tokenizer
    expect(ours.input_tokens).toBe(2 + 6 + 3)
    const sent = servers.anthropic.requests.at(-1)
    expect(sent?.path).toBe("/v1/messages/count_tokens")
    expect(sent?.headers["x-api-key"]).toBe(ANTHROPIC_KEY)
    expect(sent?.body).toEqual(counted)
  })

  it("asks the first target of a config, with the model its override_params name", async () => {
    const config = JSON.stringify({
      strategy: { mode: "fallback" },
      targets: [
        {
          provider: "anthropic",
          api_key: ANTHROPIC_KEY,
          custom_host: servers.anthropic.baseUrl,
          override_params: { model: "claude-haiku-4-5" }
        },
        { provider: "openai", api_key: "sk-openai", custom_host: openai.baseUrl }
      ]
    })
    const counted2 = await withGatewayKeyOnly({ "x-gateway-config": config }).messages.countTokens(counted)
    expect(counted2.input_tokens).toBe(2 + 6 + 3)
    expect(servers.anthropic.requests.at(-1)?.body).toEqual({ ...counted, model: "claude-haiku-4-5" })
  })

  it("answers the provider's 4xx in Anthropic's shape, with its status", async () => {
    servers.anthropic.enqueue(FakeAnthropic.error(404, "not_found_error", "model: claude-nope"))
    const error = await viaGateway("anthropic").messages.countTokens({ ...counted, model: "claude-nope" })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.NotFoundError)
    expect(Object(error).error.type).toBe("error")
    expect(Object(error).error.error.type).toBe("not_found_error")
  })

  it("answers the provider's 5xx in Anthropic's shape, with its status", async () => {
    servers.anthropic.enqueue(FakeAnthropic.error(529, "overloaded_error", "Overloaded"))
    const overloaded = await viaGateway("anthropic").messages.countTokens(counted).catch((caught: unknown) => caught)
    expect(overloaded).toBeInstanceOf(Anthropic.APIError)
    expect(Object(overloaded).status).toBe(529)
    expect(Object(overloaded).error.error.type).toBe("overloaded_error")
    servers.anthropic.enqueue(FakeAnthropic.error(500, "api_error", "Internal server error"))
    const failed = await viaGateway("anthropic").messages.countTokens(counted).catch((caught: unknown) => caught)
    expect(failed).toBeInstanceOf(Anthropic.InternalServerError)
    expect(Object(failed).error.error.type).toBe("api_error")
  })

  it("counts locally for a provider without a count call (o200k_base for gpt-4o)", async () => {
    const counted3 = await viaGateway("openai").messages.countTokens({
      model: "gpt-4o",
      system: "Be brief.",
      messages: [user("How many tokens is this sentence?")]
    })
    // "Be brief." 3 and "How many tokens is this sentence?" 7 in o200k_base, 3 per message, 3 of priming
    expect(counted3.input_tokens).toBe(3 + 7 + 2 * 3 + 3)
    expect(openai.requests).toHaveLength(0)
  })

  it("counts locally when no provider is named", async () => {
    const counted4 = await withGatewayKeyOnly({}).messages.countTokens({ ...counted, model: "gpt-4o" })
    expect(counted4.input_tokens).toBe(3 + 7 + 2 * 3 + 3)
  })

  it("refuses a body without messages with 400 naming them", async () => {
    const error = await viaGateway("openai").messages
      .countTokens({ model: "gpt-4o" } as unknown as Anthropic.MessageCountTokensParams)
      .catch((caught: unknown) => caught)
    expect(Object(error).error.error).toEqual({ type: "invalid_request_error", message: "messages: is required" })
  })
})

const withoutEstimate = (event: unknown): unknown => {
  const copy = JSON.parse(JSON.stringify(event))
  if (copy.type === "message_start") copy.message.usage.input_tokens = "estimate"
  return copy
}
