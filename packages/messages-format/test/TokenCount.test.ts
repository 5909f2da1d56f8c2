import { TokenCount, TokenEstimate } from "@switchyard/messages-format"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"

const count = (request: Parameters<typeof TokenCount.inputTokens>[0], model: string) =>
  Effect.runPromise(TokenCount.inputTokens(request, model))

describe("TokenCount", () => {
  it("picks the encoding by model family", () => {
    expect(TokenCount.encodingFor("gpt-4o-mini")).toBe("o200k_base")
    expect(TokenCount.encodingFor("o3-mini")).toBe("o200k_base")
    expect(TokenCount.encodingFor("openai/gpt-5")).toBe("o200k_base")
    expect(TokenCount.encodingFor("gpt-4-turbo")).toBe("cl100k_base")
    expect(TokenCount.encodingFor("gpt-3.5-turbo")).toBe("cl100k_base")
    expect(TokenCount.encodingFor("gemini-2.5-pro")).toBe("o200k_base")
  })

  it("counts tiktoken's tokens plus OpenAI's per-message overhead", async () => {
    // "Hello, world" is 3 tokens in both encodings ("Hello", ",", " world"); 3 + 3 of overhead
    expect(await count({ messages: [{ role: "user", content: "Hello, world" }] }, "gpt-4o")).toBe(9)
    expect(await count({ messages: [{ role: "user", content: "Hello, world" }] }, "gpt-4")).toBe(9)
  })

  it("differs from the four-characters estimate where the tokenizer does", async () => {
    // 40 digits: the estimate says 10; o200k_base splits digits in threes (14 tokens)
    const digits = "1234567890".repeat(4)
    const request = { messages: [{ role: "user" as const, content: digits }] }
    expect(TokenEstimate.inputTokens(request)).toBe(10)
    expect(await count(request, "gpt-4o")).toBe(14 + 6)
  })

  it("counts the system prompt, tools and images, and special-token text as text", async () => {
    const request = {
      system: "Be brief.",
      messages: [{
        role: "user" as const,
        content: [
          { type: "text" as const, text: "<|endoftext|>" },
          { type: "image" as const, source: { type: "url" as const, url: "https://example.com/a.png" } }
        ]
      }],
      tools: [{ name: "get_weather", input_schema: { type: "object" as const, properties: {} } }]
    }
    const tokens = await count(request, "gpt-4o")
    expect(tokens).toBeGreaterThan(TokenEstimate.IMAGE_TOKENS + 9)
    expect(tokens).toBeLessThan(TokenEstimate.IMAGE_TOKENS + 40)
  })
})
