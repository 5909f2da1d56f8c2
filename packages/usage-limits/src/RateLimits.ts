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
import type { LocalWindows } from "./LocalWindows.ts"
import { type RatePolicy, windowOf } from "./RatePolicies.ts"

/** The trio's header names, made once rather than joined on every request. */
const trioNames = {
  requests: {
    limit: "x-ratelimit-limit-requests",
    remaining: "x-ratelimit-remaining-requests",
    reset: "x-ratelimit-reset-requests"
  },
  tokens: {
    limit: "x-ratelimit-limit-tokens",
    remaining: "x-ratelimit-remaining-tokens",
    reset: "x-ratelimit-reset-tokens"
  }
} as const

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
    const names = trioNames[this.type]
    return {
      status: 429,
      body: GatewayError.envelope(this.message, "rate_limit_error", null, "rate_limit_exceeded"),
      headers: {
        "retry-after": String(Math.max(1, Math.ceil(this.retryAfterMs / 1000))),
        [names.limit]: String(this.value),
        [names.remaining]: "0",
        [names.reset]: resetText(this.retryAfterMs)
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

/** {@link Admission} on windows in this process's memory: tokens are added at once, at the time given. */
export interface LocalAdmission {
  readonly headers: Readonly<Record<string, string>>
  readonly countsTokens: boolean
  readonly addTokensAt: (tokens: number, now: number) => void
}

const noTokens = () => Effect.void

export const nothing: Admission = { headers: {}, countsTokens: false, addTokens: noTokens }

/** Requests already counted by the requests policies: one count per request, whatever its targets. */
const counted = new WeakSet<RequestContext.RequestContext>()

const storeError = (error: RateLimiter.RateLimiterError | { readonly message: string }) =>
  new WindowStoreError({ message: `rate windows: ${error.message}` })

/**
 * The `x-ratelimit-*` trio of an admitted request. Policies of one type that leave less remaining
 * write their trio over the others', so the headers tell the tightest limit.
 */
class Trio {
  readonly headers: Record<string, string> = {}
  readonly #remaining: Record<string, number> = {}

  note(suffix: "requests" | "tokens", limit: number, remaining: number, resetMs: number): void {
    if ((this.#remaining[suffix] ?? Infinity) <= remaining) return
    this.#remaining[suffix] = remaining
    const names = trioNames[suffix]
    this.headers[names.limit] = String(limit)
    this.headers[names.remaining] = String(remaining)
    this.headers[names.reset] = resetText(resetMs)
  }

  counts(suffix: "requests" | "tokens"): boolean {
    return suffix in this.#remaining
  }
}

const refusal = (policy: RatePolicy, valueKey: string, retryAfterMs: number) =>
  new RateLimited({
    policyId: policy.id,
    policyName: policy.name,
    type: policy.type,
    value: policy.value,
    unit: policy.unit,
    retryAfterMs,
    valueKey
  })

const windowKey = (policy: RatePolicy, valueKey: string) => `rate:${policy.id}:${valueKey}`

/** Checks every matching policy for one request, on windows in any store. */
export const admit = (
  policies: ReadonlyArray<RatePolicy>,
  facts: Matching.Facts,
  context: RequestContext.RequestContext,
  limiter: RateLimiter.RateLimiter,
  store: RateLimiter.RateLimiterStore["Service"]
): Effect.Effect<Admission, RateLimited | WindowStoreError> =>
  // a chain rather than a generator: a generator suspended on a Redis round trip outlives young-generation GCs
  Effect.suspend(() => {
    const trio = new Trio()
    const tokenWindows: Array<{ readonly key: string; readonly refillRate: Duration.Duration }> = []
    const firstCount = !counted.has(context)
    /** The policies from `from` on, one window at a time, in order. */
    const check = (from: number): Effect.Effect<Admission, RateLimited | WindowStoreError> => {
      for (let index = from; index < policies.length; index++) {
        const policy = policies[index]
        if (policy === undefined || !Matching.matches(policy.conditions, facts)) continue
        const valueKey = Matching.valueKey(policy.groupBy, facts)
        const key = windowKey(policy, valueKey)
        const window = windowOf(policy.unit)
        if (policy.type === "requests") {
          if (!firstCount) continue
          const consumed = limiter.consume({
            key,
            limit: policy.value,
            window,
            algorithm: "fixed-window",
            onExceeded: "fail"
          }).pipe(
            Effect.catchTag("RateLimiterError", (error): Effect.Effect<never, RateLimited | WindowStoreError> =>
              error.reason._tag === "RateLimitExceeded"
                ? Effect.fail(refusal(policy, valueKey, Duration.toMillis(error.reason.retryAfter)))
                : Effect.fail(storeError(error)))
          )
          return Effect.flatMap(consumed, (taken) => {
            trio.note("requests", policy.value, taken.remaining, Duration.toMillis(taken.resetAfter))
            return check(index + 1)
          })
        }
        const refillRate = Duration.divideUnsafe(window, policy.value)
        // a look without taking: admitted while the window holds fewer tokens than `value`
        const looked = store.fixedWindow({ key, tokens: 0, refillRate, limit: policy.value - 0.5 }).pipe(
          Effect.mapError(storeError)
        )
        return Effect.flatMap(looked, ([count, ttl]) => {
          if (count >= policy.value) {
            return Effect.fail(refusal(policy, valueKey, ttl))
          }
          trio.note("tokens", policy.value, Math.max(0, Math.floor(policy.value - count)), ttl)
          tokenWindows.push({ key, refillRate })
          return check(index + 1)
        })
      }
      return Effect.succeed(admission())
    }
    const admission = (): Admission => {
      if (firstCount && trio.counts("requests")) {
        counted.add(context)
      }
      if (tokenWindows.length === 0) {
        return { headers: trio.headers, countsTokens: false, addTokens: noTokens }
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
      return { headers: trio.headers, countsTokens: true, addTokens }
    }
    return check(0)
  })

/**
 * {@link admit} on windows in this process's memory, without an effect: the same checks in the
 * same order, on the same windows; a refusal is answered rather than failed.
 */
export const admitNow = (
  policies: ReadonlyArray<RatePolicy>,
  facts: Matching.Facts,
  context: RequestContext.RequestContext,
  windows: LocalWindows,
  now: number
): LocalAdmission | RateLimited => {
  const trio = new Trio()
  const tokenWindows: Array<{ readonly key: string; readonly refillMillis: number }> = []
  const firstCount = !counted.has(context)
  for (const policy of policies) {
    if (!Matching.matches(policy.conditions, facts)) continue
    const valueKey = Matching.valueKey(policy.groupBy, facts)
    const key = windowKey(policy, valueKey)
    const refillMillis = Duration.toMillis(windowOf(policy.unit)) / policy.value
    if (policy.type === "requests") {
      if (!firstCount) continue
      const [count, ttl] = windows.fixedWindow(key, 1, refillMillis, policy.value, now)
      if (count > policy.value) return refusal(policy, valueKey, ttl)
      trio.note("requests", policy.value, policy.value - count, ttl)
      continue
    }
    const [count, ttl] = windows.fixedWindow(key, 0, refillMillis, policy.value - 0.5, now)
    if (count >= policy.value) return refusal(policy, valueKey, ttl)
    trio.note("tokens", policy.value, Math.max(0, Math.floor(policy.value - count)), ttl)
    tokenWindows.push({ key, refillMillis })
  }
  if (firstCount && trio.counts("requests")) counted.add(context)
  return {
    headers: trio.headers,
    countsTokens: tokenWindows.length > 0,
    addTokensAt: (tokens, at) => {
      if (tokens <= 0) return
      for (const window of tokenWindows) windows.fixedWindow(window.key, tokens, window.refillMillis, undefined, at)
    }
  }
}
