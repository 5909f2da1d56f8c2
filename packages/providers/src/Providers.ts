/**
 * Every adapter of this package in one registry, over the pooled upstream client.
 */
import { ProviderRegistry } from "@switchyard/core"
import { Layer } from "effect"
import * as OpenAIAdapter from "./openai/OpenAIAdapter.ts"
import { UpstreamClient } from "./UpstreamClient.ts"

export const adapters = (client: UpstreamClient["Service"]): ReadonlyArray<ProviderRegistry.ProviderAdapter> => [
  OpenAIAdapter.make(client)
]

/** The registry of every adapter, built once over the upstream client. */
export const layer: Layer.Layer<ProviderRegistry.ProviderRegistry, never, UpstreamClient> = Layer.effect(
  ProviderRegistry.ProviderRegistry,
  UpstreamClient.useSync((client) => ProviderRegistry.ProviderRegistry.fromAdapters(adapters(client)))
)
