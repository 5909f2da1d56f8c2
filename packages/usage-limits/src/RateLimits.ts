/**
 * Rate-limit policies at request time (extensions.md, "Rate-limit policies"), on the windows of
 * effect/persistence's `RateLimiter` (in memory, or in Redis shared by every replica). A
 * `requests` policy takes one request from its window, once per request (a fallback's second
 * target does not count it again), cached answers included; a `tokens` policy admits while its
 * window's tokens are below `value`, and the answer's tokens are added once they are known. Over a
 * limit: 429 with `Retry-After`, naming the policy. Answers carry OpenAI's `x-ratelimit-*` trio.
 */
import { GatewayError, type RequestContext } from "@switchyard/core"
import { Data, Duration, Effect } from "effect"
import { RateLimiter } from "effect/persistence"
import * as Matching from "./internal/Matching.ts"
import { type RatePolicy, windowOf } from "./RatePolicies.ts"

/** 429: a rate-limit policy's window is full. */
export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly policyId: string
  readonly policyName: string | null
  readonly type: "requests" | "tokens"
  readonly value: number
  readonly unit: RatePolicy["unit"]
  readonly retryAfterMs: number
  readonly valueKey: string
}> {
  override get message(): string {
    const name = this.policyName === null ? this.policyId : `"${this.policyName}" (${this.policyId})`
    return `rate limit reached: policy ${name} allows ${this.value} ${this.type} per ${perUnit[this.unit]} for ` +
      `${this.valueKey}; retry after ${Math.ceil(this.retryAfterMs / 1000)} s`
  }

  [GatewayError.HttpAnswer](): GatewayError.HttpFailure {
    const suffix = this.type === "requests" ? "requests" : "tokens"
    return {
      status: 429,
      body: GatewayError.envelope(this.message, "rate_limit_error", null, "rate_limit_exceeded"),
      headers: {
        "retry-after": String(Math.max(1, Math.ceil(this.retryAfterMs / 1000))),
        [`x-ratelimit-limit-${suffix}`]: String(this.value),
        [`x-ratelimit-remaining-${suffix}`]: "0",
        [`x-ratelimit-reset-${suffix}`]: resetText(this.retryAfterMs)
      }
    }
  }
}

const perUnit = { rpm: "minute", rph: "hour", rpd: "day" } as const

/** The windows could not be reached; `GATEWAY_LIMITS_ON_STORE_ERROR` decides what follows. */
export class WindowStoreError extends Data.TaggedError("WindowStoreError")<{ readonly message: string }> {}

/** OpenAI writes resets as durations: `1s`, `6m0s`. */
const resetText = (ms: number): string => {
  const seconds = Math.max(0, Math.ceil(ms / 1000))
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${seconds % 60}s`
}

/** What the admitted request carries on: its headers, and how to add its tokens once known. */
export interface Admission {
  readonly headers: Readonly<Record<string, string>>
  /** Whether a tokens policy waits for the answer's tokens. */
  readonly countsTokens: boolean
  readonly addTokens: (tokens: number) => Effect.Effect<void>
}

const noTokens = () => Effect.void

export const nothing: Admission = { headers: {}, countsTokens: false, addTokens: noTokens }

/** Requests already counted by the requests policies: one count per request, whatever its targets. */
const counted = new WeakSet<RequestContext.RequestContext>()

const storeError = (error: RateLimiter.RateLimiterError | { readonly message: string }) =>
  new WindowStoreError({ message: `rate windows: ${error.message}` })

/**
 * Checks every matching policy for one request. Policies of one type that leave less remaining
 * write their trio over the others', so the headers tell the tightest limit.
 */
export const admit = (
  policies: ReadonlyArray<RatePolicy>,
  facts: Matching.Facts,
  context: RequestContext.RequestContext,
  limiter: RateLimiter.RateLimiter,
  store: RateLimiter.RateLimiterStore["Service"]
): Effect.Effect<Admission, RateLimited | WindowStoreError> =>
  Effect.gen(function*() {
    const headers: Record<string, string> = {}
    const remainingOf: Record<string, number> = {}
    const tokenWindows: Array<{ readonly key: string; readonly refillRate: Duration.Duration }> = []
    const firstCount = !counted.has(context)
    const note = (suffix: "requests" | "tokens", limit: number, remaining: number, resetMs: number) => {
      if ((remainingOf[suffix] ?? Infinity) <= remaining) return
      remainingOf[suffix] = remaining
      headers[`x-ratelimit-limit-${suffix}`] = String(limit)
      headers[`x-ratelimit-remaining-${suffix}`] = String(remaining)
      headers[`x-ratelimit-reset-${suffix}`] = resetText(resetMs)
    }
    for (const policy of policies) {
      if (!Matching.matches(policy.conditions, facts)) continue
      const valueKey = Matching.valueKey(policy.groupBy, facts)
      const key = `rate:${policy.id}:${valueKey}`
      const window = windowOf(policy.unit)
      const refused = (retryAfterMs: number) =>
        new RateLimited({
          policyId: policy.id,
          policyName: policy.name,
          type: policy.type,
          value: policy.value,
          unit: policy.unit,
          retryAfterMs,
          valueKey
        })
      if (policy.type === "requests") {
        if (!firstCount) continue
        const taken = yield* limiter.consume({
          key,
          limit: policy.value,
          window,
          algorithm: "fixed-window",
          onExceeded: "fail"
        }).pipe(
          Effect.catchTag("RateLimiterError", (error): Effect.Effect<never, RateLimited | WindowStoreError> =>
            error.reason._tag === "RateLimitExceeded"
              ? Effect.fail(refused(Duration.toMillis(error.reason.retryAfter)))
              : Effect.fail(storeError(error)))
        )
        note("requests", policy.value, taken.remaining, Duration.toMillis(taken.resetAfter))
        continue
      }
      const refillRate = Duration.divideUnsafe(window, policy.value)
      // a look without taking: admitted while the window holds fewer tokens than `value`
      const [count, ttl] = yield* store.fixedWindow({ key, tokens: 0, refillRate, limit: policy.value - 0.5 }).pipe(
        Effect.mapError(storeError)
      )
      if (count >= policy.value) {
        return yield* refused(ttl)
      }
      note("tokens", policy.value, Math.max(0, Math.floor(policy.value - count)), ttl)
      tokenWindows.push({ key, refillRate })
    }
    if (firstCount && Object.keys(remainingOf).includes("requests")) {
      counted.add(context)
    }
    if (tokenWindows.length === 0) {
      return { headers, countsTokens: false, addTokens: noTokens }
    }
    const addTokens = (tokens: number): Effect.Effect<void> =>
      tokens <= 0 ? Effect.void : Effect.forEach(
        tokenWindows,
        (window) =>
          store.fixedWindow({ key: window.key, tokens, refillRate: window.refillRate, limit: undefined }),
        { discard: true }
      ).pipe(
        // the answer has gone out already: tokens that cannot be added are logged, not answered
        Effect.catch((error) =>
          Effect.logError(`rate limits: cannot add tokens: ${error.message}`)
        )
      )
    return { headers, countsTokens: true, addTokens }
  })
