import { GatewayError, Stage } from "@switchyard/core"
import { Data, Effect } from "effect"

// a feature's own error: it says itself how it answers over HTTP
export class QuotaExceeded extends Data.TaggedError("QuotaExceeded")<{ readonly message: string }> {
  [GatewayError.HttpAnswer](): GatewayError.HttpFailure {
    return {
      status: 429,
      body: GatewayError.envelope(this.message, "quota_error", null, "quota_exceeded"),
      headers: {}
    }
  }
}
// a stage in the phase "limits" (after the input guardrails, before the cache); merge it with any other stage layers
export const QuotaStage = Stage.layer(
  Effect.succeed(
    Stage.make(
      "limits",
      "quota",
      (target) =>
        Effect.succeed((next) => (request) =>
          request.context.principal.scopes.has("completions")
            ? next(request)
            : Effect.fail(new QuotaExceeded({ message: `${target.provider}: this key has no completions quota` }))
        )
    )
  )
)
