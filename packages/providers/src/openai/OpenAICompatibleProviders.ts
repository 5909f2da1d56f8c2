/**
 * Providers that speak the OpenAI wire format, as data: adding one is one entry here.
 * `baseUrl` is what the endpoint path (`/chat/completions`, …) is appended to.
 */
import type { Endpoint } from "@switchyard/core"

export interface OpenAICompatibleProvider {
  readonly baseUrl: string
  /** Endpoints the provider serves; others answer 400 before any call. */
  readonly endpoints: ReadonlyArray<Endpoint.Endpoint>
  /** Whether a call needs `api_key`; local servers such as ollama take none. */
  readonly requiresApiKey: boolean
}

const all: ReadonlyArray<Endpoint.Endpoint> = ["chat.completions", "completions", "embeddings"]
const chatAndEmbeddings: ReadonlyArray<Endpoint.Endpoint> = ["chat.completions", "embeddings"]
const chatOnly: ReadonlyArray<Endpoint.Endpoint> = ["chat.completions"]

export const openAICompatibleProviders: Readonly<Record<string, OpenAICompatibleProvider>> = {
  openai: { baseUrl: "https://api.openai.com/v1", endpoints: all, requiresApiKey: true },
  groq: { baseUrl: "https://api.groq.com/openai/v1", endpoints: chatOnly, requiresApiKey: true },
  "mistral-ai": { baseUrl: "https://api.mistral.ai/v1", endpoints: chatAndEmbeddings, requiresApiKey: true },
  "together-ai": { baseUrl: "https://api.together.xyz/v1", endpoints: all, requiresApiKey: true },
  deepseek: {
    baseUrl: "https://api.deepseek.com/v1",
    endpoints: ["chat.completions", "completions"],
    requiresApiKey: true
  },
  "fireworks-ai": { baseUrl: "https://api.fireworks.ai/inference/v1", endpoints: all, requiresApiKey: true },
  openrouter: {
    baseUrl: "https://openrouter.ai/api/v1",
    endpoints: ["chat.completions", "completions"],
    requiresApiKey: true
  },
  ollama: { baseUrl: "http://127.0.0.1:11434/v1", endpoints: all, requiresApiKey: false },
  "x-ai": { baseUrl: "https://api.x.ai/v1", endpoints: chatAndEmbeddings, requiresApiKey: true },
  cerebras: { baseUrl: "https://api.cerebras.ai/v1", endpoints: chatOnly, requiresApiKey: true },
  "perplexity-ai": { baseUrl: "https://api.perplexity.ai", endpoints: chatOnly, requiresApiKey: true },
  nebius: { baseUrl: "https://api.studio.nebius.ai/v1", endpoints: chatAndEmbeddings, requiresApiKey: true },
  sambanova: { baseUrl: "https://api.sambanova.ai/v1", endpoints: chatOnly, requiresApiKey: true },
  "lm-studio": { baseUrl: "http://127.0.0.1:1234/v1", endpoints: all, requiresApiKey: false },
  vllm: { baseUrl: "http://127.0.0.1:8000/v1", endpoints: all, requiresApiKey: false }
}
