export * as OpenAIAdapter from "./openai/OpenAIAdapter.ts"
export * as OpenAICompatibleProviders from "./openai/OpenAICompatibleProviders.ts"
export * as Providers from "./Providers.ts"
export * as UpstreamCall from "./UpstreamCall.ts"
