import { assert, describe, it } from "@effect/vitest"
import { OpenAICompatibleProviders } from "@switchyard/providers"

const entries = Object.entries(OpenAICompatibleProviders.openAICompatibleProviders)
const isLoopback = (url: URL) =>
  url.hostname === "127.0.0.1" || url.hostname === "localhost" || url.hostname === "[::1]"

describe("OpenAICompatibleProviders", () => {
  it("lists the providers extensions.md names as OpenAI-format", () => {
    for (
      const name of ["openai", "groq", "mistral-ai", "together-ai", "deepseek", "fireworks-ai", "openrouter", "ollama"]
    ) {
      assert.isTrue(Object.hasOwn(OpenAICompatibleProviders.openAICompatibleProviders, name), name)
    }
  })

  it("gives every provider an https base URL, or http on a loopback address", () => {
    for (const [name, provider] of entries) {
      const url = new URL(provider.baseUrl)
      assert.isTrue(url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url)), name)
    }
  })

  it("writes every base URL without a trailing slash", () => {
    for (const [name, provider] of entries) assert.isFalse(provider.baseUrl.endsWith("/"), name)
  })

  it("serves chat completions with every provider", () => {
    for (const [name, provider] of entries) assert.include(provider.endpoints, "chat.completions", name)
  })

  it("asks for an api_key from every provider not on a loopback address", () => {
    for (const [name, provider] of entries) {
      assert.strictEqual(provider.requiresApiKey, !isLoopback(new URL(provider.baseUrl)), name)
    }
  })
})
