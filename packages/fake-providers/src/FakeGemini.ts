/**
 * A fake Gemini API on 127.0.0.1 that checks each request as the API documents it
 * (ai.google.dev/api/generate-content): `POST /v1beta/models/{model}:generateContent` or
 * `:streamGenerateContent?alt=sse`, the key in `x-goog-api-key`, a JSON `GenerateContentRequest`.
 * A request that breaks a rule gets Google's 400 error; a good one gets the queued behaviour.
 *
 * @example
 * ```ts
 * import { Behaviour, FakeGemini } from "@switchyard/fake-providers"
 *
 * const fake = await FakeGemini.start({ apiKey: "test-key" })
 * fake.enqueue(Behaviour.json(429, { error: { code: 429, message: "quota", status: "RESOURCE_EXHAUSTED" } }))
 * fake.enqueue(FakeGemini.events([{ candidates: [{ content: { parts: [{ text: "hi" }] } }] }], 1))
 * await fake.close()
 * ```
 */
import { reply } from "./Behaviour.ts"
import { answerGemini, type Events, type GoogleBehaviour } from "./internal/google/GeminiAnswer.ts"
import { checkGenerateContent } from "./internal/google/GeminiRequestCheck.ts"
import { startGoogleServer } from "./internal/google/GoogleFakeServer.ts"
import { type RecordedRequest, sendGoogleError } from "./internal/google/GoogleHttp.ts"

export type { Events, GoogleBehaviour } from "./internal/google/GeminiAnswer.ts"
export type { RecordedRequest } from "./internal/google/GoogleHttp.ts"

export interface FakeGemini {
  /** `http://127.0.0.1:PORT`: the origin, to use as `custom_host`. */
  readonly baseUrl: string
  readonly apiKey: string
  readonly requests: ReadonlyArray<RecordedRequest>
  readonly enqueue: (behaviour: GoogleBehaviour) => void
  readonly setDefault: (behaviour: GoogleBehaviour) => void
  readonly reset: () => void
  readonly close: () => Promise<void>
}

/** @example fake.enqueue(FakeGemini.events([{ candidates: [] }], 1)) // one event, then the socket dies */
export const events = (events: ReadonlyArray<unknown>, cutAfter?: number): Events => ({
  _tag: "Events",
  events,
  cutAfter
})

const ROUTE = /^\/v1beta\/models\/([^/:?]+):(generateContent|streamGenerateContent)(?:\?(.*))?$/

export const start = async (options: { readonly apiKey?: string } = {}): Promise<FakeGemini> => {
  const apiKey = options.apiKey ?? "gemini-test-key"
  const server = await startGoogleServer(async ({ behaviour, request, response, sequence, signal }) => {
    const route = request.method === "POST" ? ROUTE.exec(request.path) : null
    if (route === null) return sendGoogleError(response, 404, `Unknown path: ${request.method} ${request.path}`)
    const stream = route[2] === "streamGenerateContent"
    const key = request.headers["x-goog-api-key"]
    if (key === undefined) {
      return sendGoogleError(response, 403, "Method doesn't allow unregistered callers. Please use API Key.")
    }
    if (key !== apiKey) return sendGoogleError(response, 400, "API key not valid. Please pass a valid API key.")
    if (stream && new URLSearchParams(route[3] ?? "").get("alt") !== "sse") {
      return sendGoogleError(response, 400, "this fake streams only with alt=sse")
    }
    if (!(request.headers["content-type"] ?? "").startsWith("application/json")) {
      return sendGoogleError(response, 400, "Invalid JSON payload received: content-type must be application/json")
    }
    const problem = checkGenerateContent(request.body)
    if (problem !== undefined) return sendGoogleError(response, 400, problem)
    const model = decodeURIComponent(route[1] ?? "")
    const exchange = { response, body: request.body, model, stream, responseId: `fake-gemini-${sequence}`, signal }
    await answerGemini(behaviour(), exchange)
  }, reply())
  return {
    baseUrl: `http://127.0.0.1:${server.port}`,
    apiKey,
    requests: server.requests,
    enqueue: server.enqueue,
    setDefault: server.setDefault,
    reset: server.reset,
    close: server.close
  }
}
