/**
 * What the checks found, in the shape the JSON answer carries as `hook_results`: the hooks that
 * ran before the provider (`before_request_hooks`, input guardrails included) and after it
 * (`after_request_hooks`, output guardrails included).
 */

/** One check's result; `execution_time` in milliseconds. */
export interface CheckOutcome {
  readonly id: string
  readonly verdict: boolean
  readonly explanation: string
  readonly data?: unknown
  /** Why the check could not decide (a webhook down, a timeout). */
  readonly error?: string
  readonly execution_time: number
}

/** One hook's result: it passes when every check passed. */
export interface HookOutcome {
  readonly id: string
  readonly type: "guardrail" | "mutator"
  readonly verdict: boolean
  /** Whether this hook's outcome blocked the request or the answer. */
  readonly deny: boolean
  readonly async: boolean
  readonly checks: ReadonlyArray<CheckOutcome>
  readonly feedback?: { readonly value?: number; readonly weight?: number; readonly metadata?: unknown }
  readonly execution_time: number
}

export interface HookResults {
  readonly before_request_hooks: ReadonlyArray<HookOutcome>
  readonly after_request_hooks: ReadonlyArray<HookOutcome>
}

export const empty: HookResults = { before_request_hooks: [], after_request_hooks: [] }

/**
 * The results with every after-hook check's `data` dropped: on a denied answer nothing derived
 * from its content reaches the client.
 */
export const withoutAnswerData = (results: HookResults): HookResults => ({
  ...results,
  after_request_hooks: results.after_request_hooks.map((hook) => ({
    ...hook,
    checks: hook.checks.map(({ data: _data, ...check }) => check)
  }))
})
