/**
 * The `vertex-ai` provider: Gemini models (publisher `google`) and Claude models (publisher
 * `anthropic`) of one Google Cloud project and region, called with an OAuth access token that the
 * target's service account key is exchanged for. Documented rules relied on
 * (cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/projects.locations.endpoints/
 * generateContent): `POST https://{region}-aiplatform.googleapis.com/v1/projects/{project}/
 * locations/{region}/publishers/google/models/{model}:generateContent` (`:streamGenerateContent?
 * alt=sse`), `Authorization: Bearer <token>`, the Gemini API's body; the `global` location has no
 * region prefix in its host.
 *
 * @example
 * ```ts
 * import { GoogleAdapters, UpstreamClient } from "@switchyard/providers"
 * import { Effect } from "effect"
 *
 * const dispatch = Effect.flatMap(UpstreamClient.UpstreamClient, (client) =>
 *   GoogleAdapters.VertexAdapter.make(client).make({
 *     provider: "vertex-ai", cloud2_project_id: "my-project", cloud2_region: "us-central1",
 *     cloud2_service_account_json: keyFile
 *   }))
 * ```
 */
import { GatewayError, type ProviderRegistry, type ProviderTarget } from "@switchyard/core"
import { Effect } from "effect"
import { baseUrlOf } from "../google/GeminiAdapter.ts"
import { dispatch as geminiDispatch, modelSegment } from "../google/GeminiCall.ts"
import type { UpstreamClient } from "../UpstreamClient.ts"
import * as AccessToken from "./AccessToken.ts"
import * as ServiceAccount from "./ServiceAccount.ts"
import { counter as anthropicCounter, dispatch as anthropicDispatch, isAnthropicModel } from "./VertexAnthropic.ts"

/** The aiplatform host of a location. */
export const baseUrlFor = (region: string): string =>
  region === "global" ? "https://aiplatform.googleapis.com" : `https://${region}-aiplatform.googleapis.com`

const SEGMENT = /^[a-z0-9][a-z0-9-]*$/

const required = (value: string | undefined, param: "cloud2_project_id" | "cloud2_region") =>
  value !== undefined && SEGMENT.test(value)
    ? Effect.succeed(value)
    : Effect.fail(
      new GatewayError.InvalidRequest({
        message: `${param}: provider "vertex-ai" needs a ${param} of lower-case letters, digits and dashes`,
        param
      })
    )

export const make = (client: UpstreamClient["Service"]): ProviderRegistry.ProviderAdapter => ({
  names: ["vertex-ai"],
  make: (target) =>
    Effect.map(accessOf(client, target), ({ publishers, headers }) => {
      const gemini = geminiDispatch(client, target, {
        provider: target.provider,
        url: (model, stream) =>
          `${publishers}/google/models/${modelSegment(model)}:${
            stream ? "streamGenerateContent?alt=sse" : "generateContent"
          }`,
        headers
      })
      const anthropic = anthropicDispatch(client, target, {
        provider: target.provider,
        url: (model, stream) =>
          `${publishers}/anthropic/models/${encodeURIComponent(model)}:${stream ? "streamRawPredict" : "rawPredict"}`,
        headers
      })
      return (request) => (isAnthropicModel(request.body.model) ? anthropic(request) : gemini(request))
    }),
  countMessageTokens: (target) =>
    Effect.map(accessOf(client, target), ({ publishers, headers }) =>
      anthropicCounter(client, {
        provider: target.provider,
        url: `${publishers}/anthropic/models/count-tokens:rawPredict`,
        headers
      }))
})

/** The target's publishers URL (`…/v1/projects/{project}/locations/{region}/publishers`) and its bearer header. */
const accessOf = (client: UpstreamClient["Service"], target: ProviderTarget.ProviderTarget) =>
  Effect.gen(function*() {
    const project = yield* required(target.cloud2_project_id, "cloud2_project_id")
    const region = yield* required(target.cloud2_region, "cloud2_region")
    const account = yield* ServiceAccount.fromJson(target.cloud2_service_account_json)
    const token = yield* AccessToken.make(client, account, target.provider)
    const base = yield* baseUrlOf(target, baseUrlFor(region))
    const publishers = `${base}/v1/projects/${project}/locations/${region}/publishers`
    const headers = Effect.map(token, (accessToken) => ({ authorization: `Bearer ${accessToken}` }))
    return { publishers, headers }
  })
