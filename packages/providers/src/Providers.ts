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
import { UpstreamClient } from "./UpstreamClient.ts"
import * as VertexAdapter from "./vertex/VertexAdapter.ts"

export const adapters = (client: UpstreamClient["Service"]): ReadonlyArray<ProviderRegistry.ProviderAdapter> => [
  OpenAIAdapter.make(client),
  AnthropicAdapter.make(client),
  AzureOpenAIAdapter.make(client),
  AzureAIAdapter.make(client),
  BedrockAdapter.make(client),
  GeminiAdapter.make(client),
  VertexAdapter.make(client)
]

/** The registry of every adapter, built once over the upstream client. */
export const layer: Layer.Layer<ProviderRegistry.ProviderRegistry, never, UpstreamClient> = Layer.effect(
  ProviderRegistry.ProviderRegistry,
  UpstreamClient.useSync((client) => ProviderRegistry.ProviderRegistry.fromAdapters(adapters(client)))
)
