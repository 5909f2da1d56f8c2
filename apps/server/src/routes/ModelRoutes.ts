/**
 * GET /v1/models: the model catalog in OpenAI's list shape, with context lengths and prices;
 * `?provider=` lists one provider's models. GET /v1/models/{id}: one of them (what the OpenAI SDK's
 * `models.retrieve` asks for).
 */
import { GatewayError } from "@switchyard/core"
import { ModelCatalog } from "@switchyard/providers"
import { Effect } from "effect"
import { param, type RouteInput } from "./ManagementRoute.ts"

const providerOf = (input: RouteInput): string | undefined =>
  new URL(input.request.url, "http://gateway").searchParams.get("provider") ?? undefined

export const listModels = (input: RouteInput) => Effect.sync(() => ModelCatalog.modelsResponse(providerOf(input)))

/**
 * The model whose id is exactly `{id}`, as `GET /v1/models` lists it. Several providers may serve
 * one id (`gpt-4o` on `openai` and `azure-openai`): the first in the list's order answers, unless
 * `?provider=` names one. An id the catalog does not list answers 404.
 */
export const retrieveModel = (input: RouteInput) => {
  const id = param(input, "id")
  const provider = providerOf(input)
  const model = ModelCatalog.list(provider).data.find((listed) => listed.id === id)
  return model === undefined
    ? Effect.fail(
      new GatewayError.NotFound({
        message: `model '${id}' is not in the catalog${provider === undefined ? "" : ` of ${provider}`}; ` +
          "GET /v1/models lists the models it holds"
      })
    )
    : Effect.succeed(model)
}
