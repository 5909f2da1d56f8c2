/**
 * The `google` provider: the Gemini API with an API key. Documented rules relied on
 * (ai.google.dev/api/generate-content): `POST /v1beta/models/{model}:generateContent`, and
 * `:streamGenerateContent?alt=sse` for server-sent events; the key goes in `x-goog-api-key`;
 * errors answer `{error: {code, message, status}}`.
 *
 * @example
 * ```ts
 * import { GeminiAdapter, UpstreamClient } from "@switchyard/providers"
 * import { Effect } from "effect"
 *
 * const dispatch = Effect.flatMap(UpstreamClient.UpstreamClient, (client) =>
 *   GeminiAdapter.make(client).make({ provider: "google", api_key: "AIza…" }))
 * ```
 */
import { GatewayError, type ProviderRegistry, type ProviderTarget } from "@switchyard/core"
import { Effect } from "effect"
import type { UpstreamClient } from "../UpstreamClient.ts"
import { dispatch, modelSegment } from "./GeminiCall.ts"

export const DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"

export const make = (client: UpstreamClient["Service"]): ProviderRegistry.ProviderAdapter => ({
  names: ["google"],
  make: (target) =>
    Effect.gen(function*() {
      if (target.api_key === undefined || target.api_key === "") {
        return yield* invalid(`api_key: provider "${target.provider}" needs an api_key`, "api_key")
      }
      const base = yield* baseUrlOf(target)
      const headers = Effect.succeed({ "x-goog-api-key": target.api_key })
      return dispatch(client, target, {
        provider: target.provider,
        url: (model, stream) =>
          `${base}/v1beta/models/${modelSegment(model)}:${
            stream ? "streamGenerateContent?alt=sse" : "generateContent"
          }`,
        headers
      })
    })
})

const invalid = (message: string, param: string) => new GatewayError.InvalidRequest({ message, param })

/** `custom_host` replaces the API's origin (and any path prefix before `/v1beta`). */
export const baseUrlOf = (
  target: ProviderTarget.ProviderTarget,
  fallback: string = DEFAULT_BASE_URL
): Effect.Effect<string, GatewayError.InvalidRequest> => {
  if (target.custom_host === undefined) return Effect.succeed(fallback)
  const url = URL.parse(target.custom_host)
  return url === null || (url.protocol !== "http:" && url.protocol !== "https:")
    ? Effect.fail(invalid(`custom_host: must be an http or https URL (got "${target.custom_host}")`, "custom_host"))
    : Effect.succeed(target.custom_host.replace(/\/+$/, ""))
}
