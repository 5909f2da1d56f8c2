/**
 * GET /v1/models: the model catalog in OpenAI's list shape, with context lengths and prices;
 * `?provider=` lists one provider's models.
 */
import { ModelCatalog } from "@switchyard/providers"
import { Effect } from "effect"
import type { RouteInput } from "./ManagementRoute.ts"

export const listModels = (input: RouteInput) =>
  Effect.sync(() => {
    const provider = new URL(input.request.url, "http://gateway").searchParams.get("provider")
    return ModelCatalog.modelsResponse(provider ?? undefined)
  })
