import { GatewayError, Stage } from "@switchyard/core"
import { Data, Effect } from "effect"

// a feature's own error: it says itself how it answers over HTTP
export class LimitReached extends Data.TaggedError("LimitReached")<{ readonly message: string }> {
  [GatewayError.HttpAnswer](): GatewayError.HttpFailure {
    const body = GatewayError.envelope(this.message, "limit_error", null, "limit_reached")
    return { status: 412, body, headers: {} }
  }
}
// at most `max` requests per workspace in this process, in the phase "limits" (Stage.phases says why there)
export const RequestLimit = (max: number) => {
  const used = new Map<string, number>()
  const limit: Stage.StageFactory = () =>
    Effect.succeed((next) => (request) =>
      Effect.suspend(() => {
        const workspace = request.context.principal.workspaceId
        const count = (used.get(workspace) ?? 0) + 1
        used.set(workspace, count)
        return count > max
          ? Effect.fail(new LimitReached({ message: `${workspace}: ${max} requests used` }))
          : next(request)
      })
    )
  return Stage.layer(Effect.succeed(Stage.make("limits", "request-limit", limit)))
}
