import { assert, describe, it } from "@effect/vitest"
import { ProviderRegistry } from "@switchyard/core"
import { FakeOpenAI, ReadmeExamples } from "@switchyard/fake-providers"
import { OpenAICompatibleProviders, Providers, UpstreamClient } from "@switchyard/providers"
import { Effect, Layer } from "effect"
import { chunksFrom } from "../examples/StreamChat.ts"

const deltaOf = (chunk: unknown): string => {
  const choices = typeof chunk === "object" && chunk !== null && "choices" in chunk ? chunk.choices : undefined
  const first: unknown = Array.isArray(choices) ? choices[0] : undefined
  const delta = typeof first === "object" && first !== null && "delta" in first ? first.delta : undefined
  return typeof delta === "object" && delta !== null && "content" in delta && typeof delta.content === "string"
    ? delta.content
    : ""
}

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.live("StreamChat: a groq target at a custom host streams the answer as OpenAI chunks", () =>
    Effect.gen(function*() {
      const fake = yield* Effect.acquireRelease(
        Effect.promise(() => FakeOpenAI.start()),
        (fake) => Effect.promise(() => fake.close())
      )
      const chunks = yield* chunksFrom(fake.baseUrl)
      assert.strictEqual(chunks.map(deltaOf).join(""), "echo: Hi")
      assert.strictEqual(fake.requests[0]?.path, "/v1/chat/completions")
      assert.strictEqual(fake.requests[0]?.headers.authorization, "Bearer gsk-123")
    }).pipe(Effect.scoped))

  it.effect("registers every provider family the README lists", () =>
    Effect.gen(function*() {
      const registry = yield* ProviderRegistry.ProviderRegistry
      const families = ["anthropic", "azure-openai", "azure-ai", "bedrock", "google", "vertex-ai"]
      const openAIFormat = Object.keys(OpenAICompatibleProviders.openAICompatibleProviders)
      assert.deepStrictEqual(registry.names, [...families, ...openAIFormat].sort())
    }).pipe(Effect.provide(Providers.layer.pipe(Layer.provide(UpstreamClient.UpstreamClient.layer())))))
})
