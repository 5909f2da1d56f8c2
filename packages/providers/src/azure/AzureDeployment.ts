/**
 * Which Azure OpenAI deployment answers a request: the `deployments` entry whose `alias` is the
 * request's `model`, else the one marked `is_default`, else the target's own `deployment_id`.
 */
import type { GatewayError, ProviderTarget } from "@switchyard/core"
import { Effect } from "effect"
import { invalid } from "./OpenAIFormatExchange.ts"

export interface Deployment {
  readonly deploymentId: string
  readonly apiVersion: string
}

export type Deployments = ProviderTarget.ProviderTarget["deployments"]

/** Checks at compile time that some deployment can always be chosen, each with an api_version. */
export const validate = (target: ProviderTarget.ProviderTarget): Effect.Effect<void, GatewayError.InvalidRequest> => {
  const deployments = target.deployments ?? []
  if (target.deployment_id === undefined && deployments.length === 0) {
    return Effect.fail(
      invalid("deployment_id: provider \"azure-openai\" needs a deployment_id or deployments", "deployment_id")
    )
  }
  if (target.deployment_id !== undefined && target.api_version === undefined) {
    return Effect.fail(invalid("api_version: provider \"azure-openai\" needs an api_version", "api_version"))
  }
  const index = deployments.findIndex((entry) => entry.deployment_id === "" || entry.api_version === "")
  return index === -1
    ? Effect.void
    : Effect.fail(
      invalid(`deployments[${index}]: needs a deployment_id and an api_version`, `deployments[${index}]`)
    )
}

/** The deployment for a request's `model` (undefined when the body names none). */
export const choose = (
  target: ProviderTarget.ProviderTarget,
  model: string | undefined
): Effect.Effect<Deployment, GatewayError.InvalidRequest> => {
  const deployments = target.deployments ?? []
  const entry = deployments.find((candidate) => candidate.alias === model) ??
    deployments.find((candidate) => candidate.is_default === true)
  if (entry !== undefined) {
    return Effect.succeed({ deploymentId: entry.deployment_id, apiVersion: entry.api_version })
  }
  if (target.deployment_id !== undefined && target.api_version !== undefined) {
    return Effect.succeed({ deploymentId: target.deployment_id, apiVersion: target.api_version })
  }
  const aliases = deployments.map((candidate) => `"${candidate.alias}"`).join(", ")
  return Effect.fail(
    invalid(
      `model: no Azure OpenAI deployment has the alias ${
        model === undefined ? "(none given)" : `"${model}"`
      } and none is the default; aliases: ${aliases}`,
      "model"
    )
  )
}
