/**
 * Azure OpenAI: the OpenAI wire format behind a resource and a deployment.
 *
 * Documented behaviour relied on (Azure OpenAI REST reference, data-plane inference):
 * `POST https://{resource}.openai.azure.com/openai/deployments/{deployment}/chat/completions?api-version=…`
 * (also `/completions`, `/embeddings`); auth by the `api-key` header or `Authorization: Bearer`
 * with a Microsoft Entra token; OpenAI request and answer bodies (the model is the deployment's,
 * so `model` is left out); errors as `{ error: { code, message, … } }`; streams as OpenAI SSE
 * chunks ending in `data: [DONE]`, opened by a chunk holding only `prompt_filter_results`.
 */
import {
  type Dispatch,
  Endpoint,
  type GatewayError,
  GatewayRequest,
  type ProviderRegistry,
  type ProviderTarget
} from "@switchyard/core"
import { Effect } from "effect"
import * as InternalChatMembers from "../internal/InternalChatMembers.ts"
import * as MessagesOnOpenAI from "../internal/MessagesOnOpenAI.ts"
import * as NativeResponses from "../openai/NativeResponses.ts"
import { customBase, withForwarded } from "../UpstreamCall.ts"
import type { UpstreamClient } from "../UpstreamClient.ts"
import * as AzureDeployment from "./AzureDeployment.ts"
import { bearer, exchange, invalid, isHostLabel, withoutModel } from "./OpenAIFormatExchange.ts"

const provider = "azure-openai"

export const make = (client: UpstreamClient["Service"]): ProviderRegistry.ProviderAdapter => ({
  names: [provider],
  make: (target) =>
    Effect.gen(function*() {
      const base = yield* baseUrlOf(target)
      yield* AzureDeployment.validate(target)
      const headers = yield* authHeaders(target)
      return dispatch(client, target, base, headers)
    })
})

/** `https://{resource_name}.openai.azure.com`, or `custom_host` when given (tests, proxies). */
const baseUrlOf = (target: ProviderTarget.ProviderTarget): Effect.Effect<string, GatewayError.InvalidRequest> => {
  if (target.custom_host !== undefined) return customBase(target.custom_host)
  if (target.resource_name === undefined) {
    return Effect.fail(invalid(`resource_name: provider "${provider}" needs a resource_name`, "resource_name"))
  }
  return isHostLabel(target.resource_name)
    ? Effect.succeed(`https://${target.resource_name}.openai.azure.com`)
    : Effect.fail(
      invalid(`resource_name: "${target.resource_name}" is not a valid Azure resource name`, "resource_name")
    )
}

/** An Entra token (`Authorization`) wins over the resource key, as the target asked for it. */
const authHeaders = (
  target: ProviderTarget.ProviderTarget
): Effect.Effect<Readonly<Record<string, string>>, GatewayError.InvalidRequest> => {
  if (target.Authorization !== undefined) {
    return Effect.succeed({ "content-type": "application/json", authorization: bearer(target.Authorization) })
  }
  if (target.api_key !== undefined) {
    return Effect.succeed({ "content-type": "application/json", "api-key": target.api_key })
  }
  return Effect.fail(
    invalid(`api_key: provider "${provider}" needs an api_key or an Authorization (Entra) token`, "api_key")
  )
}

const dispatch = (
  client: UpstreamClient["Service"],
  target: ProviderTarget.ProviderTarget,
  base: string,
  headers: Readonly<Record<string, string>>
): Dispatch.Dispatch =>
(request) =>
  Effect.flatMap(
    AzureDeployment.choose(target, typeof request.body.model === "string" ? request.body.model : undefined),
    (deployment) => {
      const native = GatewayRequest.nativeFor(request, "responses")
      if (native !== undefined) {
        // Azure's Responses API: one path per resource, the deployment named as the model
        return NativeResponses.exchange(client, {
          provider,
          url: `${base}/openai/responses?api-version=${encodeURIComponent(deployment.apiVersion)}`,
          headers: withForwarded(target, headers, request.context.headers),
          body: { ...NativeResponses.bodyOf(native, request), model: deployment.deploymentId },
          stream: request.stream
        })
      }
      return exchange(client, {
        provider,
        url: `${base}/openai/deployments/${encodeURIComponent(deployment.deploymentId)}${
          Endpoint.paths[request.endpoint]
        }?api-version=${encodeURIComponent(deployment.apiVersion)}`,
        headers: withForwarded(target, headers, request.context.headers),
        body: withoutModel(InternalChatMembers.forOpenAIFormat(MessagesOnOpenAI.fitToModel(request, provider), true)),
        stream: request.stream
      })
    }
  )
