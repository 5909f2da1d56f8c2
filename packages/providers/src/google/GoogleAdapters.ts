/**
 * Google's two ways to Gemini: the Gemini API with an API key (`google`) and Vertex AI with a
 * service account (`vertex-ai`, which also serves Claude models).
 */
export * as VertexAdapter from "../vertex/VertexAdapter.ts"
export * as GeminiAdapter from "./GeminiAdapter.ts"
