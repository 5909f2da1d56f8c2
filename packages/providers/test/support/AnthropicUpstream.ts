/** The fake Anthropic API as a scoped resource, and the adapter's Dispatch pointed at it. */
import type { Dispatch, GatewayError, ProviderTarget } from "@switchyard/core"
import { FakeAnthropic } from "@switchyard/fake-providers"
import { AnthropicAdapter, UpstreamClient } from "@switchyard/providers"
import { Effect, type Scope } from "effect"

export const apiKey = "sk-ant-test"

/** A fake Anthropic API and an `anthropic` target pointed at it, for the test's scope. */
export const withFakeAnthropic = (extra: Partial<ProviderTarget.ProviderTarget> = {}): Effect.Effect<
  {
    readonly fake: FakeAnthropic.FakeAnthropic
    readonly target: ProviderTarget.ProviderTarget
    readonly dispatch: Dispatch.Dispatch
  },
  GatewayError.InvalidRequest,
  Scope.Scope | UpstreamClient.UpstreamClient
> =>
  Effect.gen(function*() {
    const fake = yield* Effect.acquireRelease(
      Effect.promise(() => FakeAnthropic.start({ apiKey })),
      (started) => Effect.promise(() => started.close())
    )
    const target: ProviderTarget.ProviderTarget = {
      provider: "anthropic",
      api_key: apiKey,
      custom_host: fake.baseUrl,
      ...extra
    }
    const client = yield* UpstreamClient.UpstreamClient
    const dispatch = yield* AnthropicAdapter.make(client).make(target)
    return { fake, target, dispatch }
  })

export const chat = (extra: Record<string, unknown> = {}) => ({
  model: "claude-sonnet-4-5",
  messages: [{ role: "user", content: "hello there" }],
  ...extra
})

export const weatherTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "The weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
  }
}
