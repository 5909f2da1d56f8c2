/**
 * Every adapter of this package in one registry, over the HttpClient the app provides (a pooled
 * keep-alive client in production).
 */
import { ProviderRegistry } from "@switchyard/core"
import { Layer } from "effect"
import { HttpClient } from "effect/http"
import * as OpenAIAdapter from "./openai/OpenAIAdapter.ts"

export const adapters = (client: HttpClient.HttpClient): ReadonlyArray<ProviderRegistry.ProviderAdapter> => [
  OpenAIAdapter.make(client)
]

/** The registry of every adapter, built once over the app's HttpClient. */
export const layer: Layer.Layer<ProviderRegistry.ProviderRegistry, never, HttpClient.HttpClient> = Layer.effect(
  ProviderRegistry.ProviderRegistry,
  HttpClient.HttpClient.useSync((client) => ProviderRegistry.ProviderRegistry.fromAdapters(adapters(client)))
)
