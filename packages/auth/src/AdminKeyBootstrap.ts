/**
 * The admin key of extensions.md when `GATEWAY_ADMIN_KEY` is unset: if no API key exists yet,
 * one with every scope is created in storage, printed this once, and kept only as its hash.
 */
import type { GatewayError } from "@switchyard/core"
import { Effect, Layer, Option, type Redacted } from "effect"
import { ApiKeys } from "./ApiKeys.ts"
import { DEFAULT_WORKSPACE_ID } from "./Authenticator.ts"

export const layer = (options: {
  readonly adminKey: Option.Option<Redacted.Redacted<string>>
  readonly announce: (key: string) => Effect.Effect<void>
}): Layer.Layer<never, GatewayError.InternalError, ApiKeys> =>
  Layer.effectDiscard(
    Effect.gen(function*() {
      if (Option.isSome(options.adminKey)) return
      const apiKeys = yield* ApiKeys
      if ((yield* apiKeys.count) > 0) return
      const created = yield* apiKeys.create({ name: "admin", scopes: ["admin"], workspace_id: DEFAULT_WORKSPACE_ID })
      yield* options.announce(created.key)
    })
  )
