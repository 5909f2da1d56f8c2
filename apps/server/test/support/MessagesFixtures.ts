/**
 * Shared pieces of the /v1/messages tests: the Anthropic fake and a gateway, Anthropic's client
 * straight to the fake (what the gateway's answers are compared with), and request parts.
 */
import Anthropic from "@anthropic-ai/sdk"
import { FakeAnthropic } from "@switchyard/fake-providers"
import { afterAll, beforeAll, beforeEach } from "vitest"
import * as GatewayProcess from "./GatewayProcess.ts"

/** The key the Anthropic fake takes. */
export const ANTHROPIC_KEY = "sk-ant-test"

export interface Harness {
  anthropic: FakeAnthropic.FakeAnthropic
  gateway: GatewayProcess.GatewayProcess
}

/** The Anthropic fake and one gateway for a test file; the fake is reset before each test. */
export const useAnthropicAndGateway = (): Harness => {
  const harness = {} as Harness
  beforeAll(async () => {
    harness.anthropic = await FakeAnthropic.start({ apiKey: ANTHROPIC_KEY })
    harness.gateway = await GatewayProcess.start()
  })
  beforeEach(() => harness.anthropic.reset())
  afterAll(async () => {
    await harness.gateway?.stop()
    await harness.anthropic?.close()
  })
  return harness
}

// the fake checks Anthropic's documented headers (`x-api-key`, a version it knows); this client
// sends its key as a bearer token and a newer version
/** Anthropic's client straight to the fake, as to Anthropic itself. */
export const direct = (anthropic: FakeAnthropic.FakeAnthropic) =>
  new Anthropic({
    apiKey: ANTHROPIC_KEY,
    baseURL: anthropic.baseUrl,
    maxRetries: 0,
    defaultHeaders: { "x-api-key": ANTHROPIC_KEY, "anthropic-version": "2023-06-01" }
  })

export const user = (text: string) => ({ role: "user" as const, content: [{ type: "text" as const, text }] })

export const weather = {
  name: "get_weather",
  description: "Weather",
  input_schema: { type: "object" as const, properties: {} }
}

/**
 * A conversation that must reach an Anthropic-format target as the client sent it: a thinking
 * block with its signature, a tool call, and its failed result.
 */
export const toolResultTurn = (model: string): Anthropic.MessageCreateParamsNonStreaming => ({
  model,
  max_tokens: 2048,
  thinking: { type: "enabled", budget_tokens: 1024 },
  tools: [weather],
  messages: [
    user("weather in Paris?"),
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Call the tool.", signature: "sig-1" },
        { type: "tool_use", id: "toolu_a", name: "get_weather", input: { city: "Paris" } }
      ]
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_a", content: "no data", is_error: true }] }
  ]
})
