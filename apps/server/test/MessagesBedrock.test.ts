/**
 * POST /v1/messages to Claude on Bedrock: the client's own body goes to InvokeModel(WithResponseStream)
 * in Anthropic's shape (not Converse), so Anthropic's client assembles the same Message from the
 * gateway's answer as from Anthropic itself, thinking signatures included.
 */
import Anthropic from "@anthropic-ai/sdk"
import { FakeBedrock } from "@switchyard/fake-providers"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as GatewayProcess from "./support/GatewayProcess.ts"
import { direct, toolResultTurn, useAnthropicAndGateway, user, weather } from "./support/MessagesFixtures.ts"

const credentials = { accessKeyId: "AKIDMESSAGES", secretAccessKey: "messages-secret" }
const CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

const servers = useAnthropicAndGateway()
let bedrock: FakeBedrock.FakeBedrock

beforeAll(async () => {
  bedrock = await FakeBedrock.start({ credentials, region: "us-east-1" })
})
beforeEach(() => bedrock.reset())
afterAll(async () => {
  await bedrock?.close()
})

const bedrockConfig = () =>
  JSON.stringify({
    provider: "bedrock",
    custom_host: bedrock.baseUrl,
    cloud1_access_key_id: credentials.accessKeyId,
    cloud1_secret_access_key: credentials.secretAccessKey,
    cloud1_region: "us-east-1"
  })

const viaBedrock = () =>
  new Anthropic({
    apiKey: GatewayProcess.ADMIN_KEY,
    baseURL: servers.gateway.baseUrl,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-config": bedrockConfig() }
  })

/** Ids carry each fake's reply ordinal and the model is each provider's own name for it. */
const normalized = (message: Anthropic.Message): unknown => {
  const { id: _id, model: _model, ...rest } = message
  return JSON.parse(JSON.stringify(rest).replace(/(toolu_fake_|sig-fake-)\d+/g, "$1N"))
}

describe("/v1/messages to Claude on Bedrock", () => {
  const cases: ReadonlyArray<readonly [string, Anthropic.MessageCreateParamsNonStreaming]> = [
    ["text", { model: CLAUDE, max_tokens: 64, messages: [user("hello there")] }],
    ["thinking", {
      model: CLAUDE,
      max_tokens: 2048,
      messages: [user("why?")],
      thinking: { type: "enabled", budget_tokens: 1024 }
    }],
    ["tool use", { model: CLAUDE, max_tokens: 64, messages: [user("weather?")], tools: [weather] }],
    ["a stop sequence", { model: CLAUDE, max_tokens: 64, messages: [user("one ### two")], stop_sequences: ["###"] }]
  ]

  for (const [name, params] of cases) {
    it(`assembles the same Message as from Anthropic itself: ${name}, plain and streamed`, async () => {
      const run = async (client: Anthropic) => ({
        plain: normalized(await client.messages.create(params)),
        streamed: normalized(await client.messages.stream(params).finalMessage())
      })
      const vendor = await run(direct(servers.anthropic))
      const ours = await run(viaBedrock())
      expect(ours.plain).toEqual(vendor.plain)
      expect(ours.streamed).toEqual(vendor.streamed)
      expect(bedrock.requests.map((request) => request.operation)).toEqual(["invoke", "invoke-with-response-stream"])
      expect(bedrock.requests.map((request) => request.modelId)).toEqual([CLAUDE, CLAUDE])
      // Anthropic's body as the client sent it, less `model` and `stream`, with Bedrock's version
      const { model: _model, ...sent } = params
      expect(bedrock.requests[0]?.body).toEqual({ ...sent, anthropic_version: "bedrock-2023-05-31" })
    })
  }

  it("sends thinking blocks with their signatures and tool results as they came, and betas in the body", async () => {
    const params = toolResultTurn(CLAUDE)
    await viaBedrock().messages.create(params, {
      headers: { "anthropic-beta": "interleaved-thinking-2025-05-14, token-efficient-tools-2025-02-19" }
    })
    const sent = Object(bedrock.requests[0]?.body)
    expect(sent.messages).toEqual(params.messages)
    expect(sent.anthropic_beta).toEqual(["interleaved-thinking-2025-05-14", "token-efficient-tools-2025-02-19"])
  })

  it("answers an exception frame after the 200 as Anthropic's error event", async () => {
    const chunk = (event: Record<string, unknown>) =>
      FakeBedrock.event("chunk", { bytes: Buffer.from(JSON.stringify(event)).toString("base64") })
    bedrock.enqueue(FakeBedrock.frames([
      chunk({
        type: "message_start",
        message: { id: "msg_1", type: "message", role: "assistant", model: "claude", content: [], usage: {} }
      }),
      FakeBedrock.exception("throttlingException", "Too many tokens, please wait before trying again.")
    ]))
    const stream = viaBedrock().messages.stream({ model: CLAUDE, max_tokens: 64, messages: [user("hi")] })
    await expect(stream.finalMessage()).rejects.toThrow(/Too many tokens/)
  })

  it("answers a stream cut before message_stop with an error, not a short Message", async () => {
    bedrock.enqueue(FakeBedrock.frames([], { cutAfter: 0 }))
    const stream = viaBedrock().messages.stream({ model: CLAUDE, max_tokens: 64, messages: [user("hi")] })
    await expect(stream.finalMessage()).rejects.toThrow()
  })

  it("keeps Converse for other models, and for chat completions to Claude", async () => {
    await viaBedrock().messages.create({ model: "amazon.nova-pro-v1:0", max_tokens: 64, messages: [user("hi")] })
    const chat = await fetch(`${servers.gateway.baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
        "x-gateway-config": bedrockConfig()
      },
      body: JSON.stringify({ model: CLAUDE, messages: [{ role: "user", content: "hi" }] })
    })
    expect(chat.status).toBe(200)
    expect(bedrock.requests.map((request) => request.operation)).toEqual(["converse", "converse"])
  })
})

describe("/v1/messages/count_tokens to Claude on Bedrock", () => {
  const counted = { model: CLAUDE, system: "Be brief.", messages: [user("How many tokens is this sentence?")] }

  it("asks Bedrock's CountTokens for the foundation model, with the InvokeModel body it would send", async () => {
    const ours = await viaBedrock().messages.countTokens(counted)
    // the fake Anthropic API's count of the same messages: Bedrock counts as Anthropic does
    expect(ours).toEqual(await direct(servers.anthropic).messages.countTokens({ ...counted, model: "claude" }))
    const sent = bedrock.requests.at(-1)
    expect(sent?.operation).toBe("count-tokens")
    expect(sent?.modelId).toBe("anthropic.claude-sonnet-4-5-20250929-v1:0")
    const invoke = JSON.parse(Buffer.from(Object(sent?.body).input.invokeModel.body, "base64").toString("utf8"))
    const { model: _model, ...rest } = counted
    expect(invoke).toEqual({ max_tokens: 1, ...rest, anthropic_version: "bedrock-2023-05-31" })
  })

  it("answers Bedrock's error with its status, in Anthropic's shape", async () => {
    bedrock.enqueue(FakeBedrock.error(429, "ThrottlingException", "Too many requests, please wait."))
    const error = await viaBedrock().messages.countTokens(counted).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.RateLimitError)
    expect(Object(error).error.error.type).toBe("rate_limit_error")
  })

  it("counts locally for a model Bedrock has no count for", async () => {
    await viaBedrock().messages.countTokens({ ...counted, model: "amazon.nova-pro-v1:0" })
    expect(bedrock.requests).toHaveLength(0)
  })
})
