/**
 * Every adapter of this package in one registry, over the pooled upstream client.
 */
import { ProviderRegistry } from "@switchyard/core"
import { Layer } from "effect"
import * as AnthropicAdapter from "./anthropic/AnthropicAdapter.ts"
import * as AzureAIAdapter from "./azure/AzureAIAdapter.ts"
import * as AzureOpenAIAdapter from "./azure/AzureOpenAIAdapter.ts"
import * as BedrockAdapter from "./bedrock/BedrockAdapter.ts"
import * as GeminiAdapter from "./google/GeminiAdapter.ts"
import * as OpenAIAdapter from "./openai/OpenAIAdapter.ts"
import { forCallerHost, UpstreamClient } from "./UpstreamClient.ts"
import * as VertexAdapter from "./vertex/VertexAdapter.ts"

const makers: ReadonlyArray<(client: UpstreamClient["Service"]) => ProviderRegistry.ProviderAdapter> = [
  OpenAIAdapter.make,
  AnthropicAdapter.make,
  AzureOpenAIAdapter.make,
  AzureAIAdapter.make,
  BedrockAdapter.make,
  GeminiAdapter.make,
  VertexAdapter.make
]

/** A target with its own `custom_host` calls through the trusted-hosts guard; any other, as it always did. */
const byHost = (
  builtIn: ProviderRegistry.ProviderAdapter,
  callerHost: ProviderRegistry.ProviderAdapter
): ProviderRegistry.ProviderAdapter => {
  const builtInCount = builtIn.countMessageTokens
  const callerHostCount = callerHost.countMessageTokens
  return {
    names: builtIn.names,
    make: (target) => (target.custom_host === undefined ? builtIn.make(target) : callerHost.make(target)),
    countMessageTokens: builtInCount === undefined || callerHostCount === undefined
      ? undefined
      : (target) => (target.custom_host === undefined ? builtInCount(target) : callerHostCount(target))
  }
}

export const adapters = (client: UpstreamClient["Service"]): ReadonlyArray<ProviderRegistry.ProviderAdapter> => {
  const callerHost = forCallerHost(client, "custom_host")
  return makers.map((make) => byHost(make(client), make(callerHost)))
}

/** The registry of every adapter, built once over the upstream client. */
export const layer: Layer.Layer<ProviderRegistry.ProviderRegistry, never, UpstreamClient> = Layer.effect(
  ProviderRegistry.ProviderRegistry,
  UpstreamClient.useSync((client) => ProviderRegistry.ProviderRegistry.fromAdapters(adapters(client)))
)
