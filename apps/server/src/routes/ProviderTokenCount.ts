/**
 * POST /v1/messages/count_tokens asks the provider itself where its API counts (Anthropic's
 * count_tokens, and Claude on Bedrock and Vertex AI: core's ProviderAdapter.countMessageTokens),
 * so the number is the one it bills. The target is the selected config's first leaf (a
 * fallback's first choice, a load balancer's first target), with its own credentials and the
 * model its override_params name. `None` (no provider selected, or one whose API counts
 * nothing for the model) leaves the count to the edge's local tokenizer.
 */
import { ConfigCompiler, ConfigNode, type GatewayError, ProviderRegistry, ProviderSelection } from "@switchyard/core"
import type { ProviderTarget } from "@switchyard/core"
import { ProviderAccess, type StoredConfigs } from "@switchyard/provider-access"
import { Effect, Option } from "effect"

export interface CountRequest {
  /** The count body as the client sent it. */
  readonly body: { readonly [key: string]: unknown }
  readonly model: string
  readonly headers: Readonly<Record<string, string>>
  readonly workspaceId: string
}

export type Count = (request: CountRequest) => Effect.Effect<Option.Option<number>, GatewayError.GatewayError>

/** The provider's count of a request, with the selectors and adapters taken once at build time. */
export const make: Effect.Effect<Count, never, ProviderRegistry.ProviderRegistry | StoredConfigs.StoredConfigs> = Effect
  .gen(function*() {
    const selectors = yield* ProviderAccess.selectors
    const registry = yield* ProviderRegistry.ProviderRegistry
    return (request) =>
      Effect.gen(function*() {
        if (!selectsProvider(request)) return Option.none()
        const selection = yield* ProviderSelection.selectWith(selectors, {
          headers: request.headers,
          model: request.model,
          workspaceId: request.workspaceId
        })
        const target = firstTarget(undefined, yield* selection.config)
        if (target === undefined) return Option.none()
        const count = Option.getOrUndefined(registry.find(target.provider))?.countMessageTokens
        if (count === undefined) return Option.none()
        const counter = yield* count(target)
        const model = target.override_params?.model
        const body = typeof model === "string" ? { ...request.body, model } : request.body
        return yield* counter({ body, headers: request.headers, workspaceId: request.workspaceId })
      })
  })

/** Whether the request names a provider at all (a selecting header, or a model written as @slug/model). */
const selectsProvider = (request: CountRequest): boolean =>
  request.model.startsWith("@") ||
  ProviderSelection.selectingHeaders.some((name) => (request.headers[name] ?? "") !== "")

/** The first leaf of a config tree, as the compiler sees it (inherited fields, a virtual key's `@`). */
const firstTarget = (
  parent: ConfigNode.ConfigNode | undefined,
  own: ConfigNode.ConfigNode
): ProviderTarget.ProviderTarget | undefined => {
  const node = ConfigNode.inherit(parent, own)
  const first = own.targets?.[0]
  if (own.strategy !== undefined || own.targets !== undefined) {
    return first === undefined ? undefined : firstTarget(node, first)
  }
  const provider = node.provider ?? (node.virtual_key === undefined ? undefined : ConfigCompiler.STORED_PROVIDER)
  return provider === undefined ? undefined : { ...node, provider }
}
