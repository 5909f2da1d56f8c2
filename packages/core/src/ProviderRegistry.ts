/**
 * The provider adapters the gateway knows, by short name. An adapter turns a target into the
 * Dispatch that really calls that provider; the app chooses which adapters to register.
 */
import { Context, Effect, Layer, Option } from "effect"
import type { Dispatch } from "./Dispatch.ts"
import { type GatewayError, InvalidRequest } from "./GatewayError.ts"
import type { JsonObject } from "./GatewayRequest.ts"
import type { ProviderTarget } from "./ProviderTarget.ts"

export interface ProviderAdapter {
  /** Short provider names this adapter serves (`openai`, `groq`, …); "@" serves every `@slug`. */
  readonly names: ReadonlyArray<string>
  /** Checks a target's credentials once, at compile time, and builds its Dispatch. */
  readonly make: (target: ProviderTarget) => Effect.Effect<Dispatch, InvalidRequest>
  /**
   * The provider's own count of a Messages request's input tokens (Anthropic's count_tokens, and
   * the count calls of the clouds that host Claude), so the number is the one the provider bills.
   * Absent where the provider's API has no such call.
   */
  readonly countMessageTokens?:
    | ((target: ProviderTarget) => Effect.Effect<MessageTokenCounter, InvalidRequest>)
    | undefined
}

/** A Messages count request (`POST /v1/messages/count_tokens`) as the edge received it. */
export interface TokenCountRequest {
  /** The body as the client sent it: `model`, `messages`, `system`, `tools`, … */
  readonly body: JsonObject
  /** Incoming headers, lower-case names (`anthropic-beta` goes with the body). */
  readonly headers: Readonly<Record<string, string>>
  /** The caller's workspace: stored credentials are looked up there only. */
  readonly workspaceId: string
}

/** The input tokens by the provider's count; `None` when its API counts none for this model. */
export type MessageTokenCounter = (
  request: TokenCountRequest
) => Effect.Effect<Option.Option<number>, GatewayError>

export class ProviderRegistry extends Context.Service<ProviderRegistry, {
  readonly find: (name: string) => Option.Option<ProviderAdapter>
  readonly names: ReadonlyArray<string>
}>()("@switchyard/core/ProviderRegistry") {
  /** A registry over the given adapters; a later adapter wins a name clash. */
  static readonly fromAdapters = (adapters: ReadonlyArray<ProviderAdapter>) => {
    const byName = new Map<string, ProviderAdapter>()
    for (const adapter of adapters) for (const name of adapter.names) byName.set(name, adapter)
    return ProviderRegistry.of({
      // names of stored credentials (`@slug`) all go to the adapter registered as "@"
      find: (name) => Option.fromUndefinedOr(byName.get(name) ?? (name.startsWith("@") ? byName.get("@") : undefined)),
      names: [...byName.keys()].sort()
    })
  }

  static readonly layer = (adapters: ReadonlyArray<ProviderAdapter>) =>
    Layer.succeed(ProviderRegistry, ProviderRegistry.fromAdapters(adapters))
}

/** Builds the Dispatch of a target with the adapter registered for its provider. */
export const dispatchFor = (target: ProviderTarget): Effect.Effect<Dispatch, InvalidRequest, ProviderRegistry> =>
  ProviderRegistry.use((registry) =>
    Option.match(registry.find(target.provider), {
      onNone: () =>
        Effect.fail(
          new InvalidRequest({
            message: `provider: unknown provider "${target.provider}"; known providers: ${registry.names.join(", ")}`,
            param: "provider"
          })
        ),
      onSome: (adapter) => adapter.make(target)
    })
  )
