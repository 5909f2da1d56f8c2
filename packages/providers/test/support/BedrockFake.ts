/** The fake Bedrock as a scoped resource, the target pointed at it, and the adapter built for it. */
import type { Dispatch, GatewayError, ProviderTarget } from "@switchyard/core"
import { FakeBedrock } from "@switchyard/fake-providers"
import { BedrockAdapter, UpstreamClient } from "@switchyard/providers"
import { Effect, type Scope } from "effect"

/** AWS's documented example credentials (never valid anywhere). */
export const credentials = {
  accessKeyId: "AKIDEXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
}

export const modelId = "anthropic.claude-3-5-sonnet-20240620-v1:0"

export const fakeBedrock = (options: { readonly sessionToken?: string } = {}) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      FakeBedrock.start({ credentials: { ...credentials, sessionToken: options.sessionToken }, region: "us-east-1" })
    ),
    (fake) => Effect.promise(() => fake.close())
  )

export const targetFor = (fake: FakeBedrock.FakeBedrock): ProviderTarget.ProviderTarget => ({
  provider: "bedrock",
  custom_host: fake.baseUrl,
  cloud1_access_key_id: credentials.accessKeyId,
  cloud1_secret_access_key: credentials.secretAccessKey,
  cloud1_region: "us-east-1"
})

export const build = (
  target: ProviderTarget.ProviderTarget
): Effect.Effect<Dispatch.Dispatch, GatewayError.InvalidRequest, UpstreamClient.UpstreamClient> =>
  Effect.flatMap(UpstreamClient.UpstreamClient, (client) => BedrockAdapter.make(client).make(target))

/** A fake and the dispatch of a target pointed at it. */
export const withFake = (options: { readonly sessionToken?: string } = {}): Effect.Effect<
  {
    readonly fake: FakeBedrock.FakeBedrock
    readonly target: ProviderTarget.ProviderTarget
    readonly dispatch: Dispatch.Dispatch
  },
  GatewayError.InvalidRequest,
  Scope.Scope | UpstreamClient.UpstreamClient
> =>
  Effect.gen(function*() {
    const fake = yield* fakeBedrock(options)
    const target = targetFor(fake)
    const dispatch = yield* build(
      options.sessionToken === undefined ? target : { ...target, cloud1_session_token: options.sessionToken }
    )
    return { fake, target, dispatch }
  })

export const chat = (extra: Readonly<Record<string, unknown>> = {}) => ({
  model: modelId,
  messages: [{ role: "user", content: "hello there" }],
  ...extra
})
