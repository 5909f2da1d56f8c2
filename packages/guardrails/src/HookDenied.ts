/**
 * 446: a hook or guardrail with `deny` failed. `before`: the provider was never called; `after`:
 * the answer was replaced. `hookResults` is answered beside the error, never the denied content.
 * It is no upstream failure, so routing never falls back from it: it is the gateway's decision.
 */
import { GatewayError } from "@switchyard/core"
import { Data } from "effect"

export const STATUS = 446

export class HookDenied extends Data.TaggedError("HookDenied")<{
  readonly stage: "before" | "after"
  readonly hookResults: unknown
}> {
  override get message(): string {
    return `the ${this.stage === "before" ? "input" : "output"} checks with deny failed`
  }

  [GatewayError.HttpAnswer](): GatewayError.HttpFailure {
    return {
      status: STATUS,
      body: {
        ...GatewayError.envelope(
          "The guardrail checks defined in the config failed. You can find more information in the `hook_results` object.",
          "hooks_failed",
          null,
          "hook_denied"
        ),
        hook_results: this.hookResults
      },
      headers: {}
    }
  }
}
