/**
 * Azure AI Foundry model inference (`azure-ai`): models deployed as serverless APIs or on managed
 * compute, spoken to in the OpenAI chat format.
 *
 * Documented behaviour relied on (Azure AI Model Inference API reference): serverless endpoints
 * answer `POST https://{endpoint}.{region}.models.ai.azure.com/chat/completions` (`api-version`
 * as a query parameter); managed online endpoints answer `POST
 * https://{endpoint}.{region}.inference.ml.azure.com/score` and route to a deployment by the
 * `azureml-model-deployment` header; both take `Authorization: Bearer <key or Entra token>`.
 * The API's common parameters have no `n`, and unknown parameters are refused by default
 * (`extra-parameters: error`), so `n > 1` is refused here before any call.
 */
import type { Dispatch, GatewayError, ProviderRegistry, ProviderTarget } from "@switchyard/core"
import { Effect } from "effect"
import * as InternalChatMembers from "../internal/InternalChatMembers.ts"
import { customBase, withForwarded } from "../UpstreamCall.ts"
import type { UpstreamClient } from "../UpstreamClient.ts"
import { bearer, exchange, invalid, isHostLabel } from "./OpenAIFormatExchange.ts"

const provider = "azure-ai"

interface Route {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
}

export const make = (client: UpstreamClient["Service"]): ProviderRegistry.ProviderAdapter => ({
  names: [provider],
  make: (target) =>
    Effect.gen(function*() {
      const authorization = yield* authorizationOf(target)
      const route = yield* routeOf(target, { "content-type": "application/json", authorization })
      return dispatch(client, target, route)
    })
})

const authorizationOf = (target: ProviderTarget.ProviderTarget): Effect.Effect<string, GatewayError.InvalidRequest> => {
  if (target.Authorization !== undefined) return Effect.succeed(bearer(target.Authorization))
  if (target.api_key !== undefined) return Effect.succeed(`Bearer ${target.api_key}`)
  return Effect.fail(invalid(`api_key: provider "${provider}" needs an api_key or an Authorization token`, "api_key"))
}

/** Serverless unless `cloud3_deployment_type` says managed. */
const routeOf = (
  target: ProviderTarget.ProviderTarget,
  headers: Readonly<Record<string, string>>
): Effect.Effect<Route, GatewayError.InvalidRequest> =>
  Effect.gen(function*() {
    const managed = target.cloud3_deployment_type === "managed"
    const base = yield* baseOf(target, managed ? "inference.ml.azure.com" : "models.ai.azure.com")
    if (!managed) {
      const query = target.cloud3_api_version === undefined
        ? ""
        : `?api-version=${encodeURIComponent(target.cloud3_api_version)}`
      return { url: `${base}/chat/completions${query}`, headers }
    }
    if (target.cloud3_deployment_name === undefined) {
      return yield* Effect.fail(
        invalid(
          `cloud3_deployment_name: a managed "${provider}" deployment needs a cloud3_deployment_name`,
          "cloud3_deployment_name"
        )
      )
    }
    return { url: `${base}/score`, headers: { ...headers, "azureml-model-deployment": target.cloud3_deployment_name } }
  })

/** `https://{endpoint}.{region}.{domain}`, or `custom_host` when given. */
const baseOf = (
  target: ProviderTarget.ProviderTarget,
  domain: string
): Effect.Effect<string, GatewayError.InvalidRequest> => {
  if (target.custom_host !== undefined) return customBase(target.custom_host)
  for (
    const [param, value] of [
      ["cloud3_endpoint_name", target.cloud3_endpoint_name],
      ["cloud3_region", target.cloud3_region]
    ] as const
  ) {
    if (value === undefined) return Effect.fail(invalid(`${param}: provider "${provider}" needs a ${param}`, param))
    if (!isHostLabel(value)) return Effect.fail(invalid(`${param}: "${value}" is not a valid host name part`, param))
  }
  return Effect.succeed(`https://${target.cloud3_endpoint_name}.${target.cloud3_region}.${domain}`)
}

const dispatch = (
  client: UpstreamClient["Service"],
  target: ProviderTarget.ProviderTarget,
  route: Route
): Dispatch.Dispatch =>
(request) => {
  if (request.endpoint !== "chat.completions") {
    return Effect.fail(invalid(`provider "${provider}" serves only /v1/chat/completions`, "provider"))
  }
  const n = request.body.n
  if (typeof n === "number" && n > 1) {
    return Effect.fail(invalid(`n: provider "${provider}" returns one choice per request; n > 1 is not supported`, "n"))
  }
  return exchange(client, {
    provider,
    url: route.url,
    headers: withForwarded(target, route.headers, request.context.headers),
    body: bodyFor(target, InternalChatMembers.forOpenAIFormat(request.body, false)),
    stream: request.stream
  })
}

/**
 * The endpoint serves the model it was deployed with; a caller's `model` (a gateway alias) is
 * replaced by `cloud3_model_name` when the target names one, and otherwise left out.
 */
const bodyFor = (
  target: ProviderTarget.ProviderTarget,
  body: Readonly<Record<string, unknown>>
): Readonly<Record<string, unknown>> => {
  const copy: Record<string, unknown> = { ...body }
  delete copy.model
  if (target.cloud3_model_name !== undefined) copy.model = target.cloud3_model_name
  return copy
}
