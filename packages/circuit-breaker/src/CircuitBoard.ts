/**
 * What an operator can see of the circuits (`GET /v1/circuits`): each circuit this process ran an
 * attempt through, its state as the store holds it (so, with Redis, as every replica sees it), and
 * what this process saw of it — the failures in a row it recorded and when it saw it open.
 *
 * It wraps the `CircuitBreakerStore` the stage uses rather than asking the store for its keys:
 * effect's stores cannot list them, and a Redis `SCAN` over every replica's circuits on each poll
 * would cost more than the page is worth. The price is that a circuit only another replica has
 * used is not listed here (its state, when listed, is still the shared one).
 */
import { Clock, Context, Duration, Effect, Layer } from "effect"
import { CircuitBreaker } from "effect/persistence"

/** One circuit as `GET /v1/circuits` shows it. Never a secret: the key holds a credential's hash. */
export interface Circuit {
  /** The circuit's key (`CircuitKey.of`): `[provider, host, model, credentialId]` as JSON. */
  readonly id: string
  readonly provider: string
  readonly host: string
  readonly model: string
  readonly credential_id: string
  /** `unknown` when the store could not be read. */
  readonly state: "closed" | "open" | "half_open" | "unknown"
  /** While open: how long until a probe may go through, in ms (0 once due). */
  readonly retry_after_ms: number | null
  /** While half open: whether a probe is running. */
  readonly probing: boolean
  /** Openings since the backoff last reset (0 while closed). */
  readonly consecutive_openings: number
  /** Failures in a row this process recorded (a success or a close resets it). */
  readonly failures: number
  /** When this process saw the circuit open (unix seconds), while it is not closed again. */
  readonly opened_at: number | null
  /** This process's last attempt through the circuit (unix seconds). */
  readonly last_attempt_at: number
}

export class CircuitBoard extends Context.Service<CircuitBoard, {
  /** Every circuit this process used in the last hour, the most recently used first. */
  readonly list: Effect.Effect<ReadonlyArray<Circuit>>
}>()("@switchyard/circuit-breaker/CircuitBoard") {}

/** As many circuits as a page should show; past it the least recently used is forgotten. */
export const MAX_CIRCUITS = 1000

/** As long as the stores keep an idle circuit (effect's default), after which it starts closed. */
const IDLE_MS = 60 * 60 * 1000

interface Seen {
  failures: number
  openedAt: number | null
  lastAttemptAt: number
}

const parseKey = (key: string) => {
  try {
    const parts: unknown = JSON.parse(key)
    if (Array.isArray(parts) && parts.length === 4) {
      const [provider, host, model, credential_id] = parts
      if ([provider, host, model, credential_id].every((part) => typeof part === "string")) {
        return {
          provider: String(provider),
          host: String(host),
          model: String(model),
          credential_id: String(credential_id)
        }
      }
    }
  } catch {
    // a key written by someone else's stage: shown whole under `id`
  }
  return { provider: "", host: "", model: "", credential_id: "" }
}

const stateOf = (state: CircuitBreaker.State) => {
  switch (state._tag) {
    case "Open":
      return {
        state: "open" as const,
        retry_after_ms: Math.round(Duration.toMillis(state.retryAfter)),
        probing: false,
        consecutive_openings: state.consecutiveOpenings
      }
    case "HalfOpen":
      return {
        state: "half_open" as const,
        retry_after_ms: null,
        probing: state.probing,
        consecutive_openings: state.consecutiveOpenings
      }
    case "Closed":
      return { state: "closed" as const, retry_after_ms: null, probing: false, consecutive_openings: 0 }
  }
}

const unknownState = { state: "unknown" as const, retry_after_ms: null, probing: false, consecutive_openings: 0 }

/**
 * The board over the app's `CircuitBreakerStore`, and that store again, watched: give the stage
 * the store this layer provides.
 *
 * @example
 * import { CircuitBoard, CircuitBreakerMiddleware } from "@switchyard/circuit-breaker"
 * import { Layer } from "effect"
 * const circuits = CircuitBoard.layer.pipe(Layer.provide(CircuitBreakerMiddleware.layerMemory))
 */
export const layer: Layer.Layer<
  CircuitBoard | CircuitBreaker.CircuitBreakerStore,
  never,
  CircuitBreaker.CircuitBreakerStore
> = Layer.effectContext(Effect.gen(function*() {
  const store = yield* CircuitBreaker.CircuitBreakerStore
  // insertion order is recency: a touched circuit is moved to the end
  const seen = new Map<string, Seen>()

  const touch = (key: string, now: number): Seen => {
    const found = seen.get(key)
    const entry = found ?? { failures: 0, openedAt: null, lastAttemptAt: now }
    entry.lastAttemptAt = now
    seen.delete(key)
    seen.set(key, entry)
    if (seen.size > MAX_CIRCUITS) {
      const oldest = seen.keys().next()
      if (oldest.done !== true) seen.delete(oldest.value)
    }
    return entry
  }

  const watched = CircuitBreaker.CircuitBreakerStore.of({
    admit: (key) =>
      Effect.onExit(store.admit(key), () => Effect.map(Clock.currentTimeMillis, (now) => void touch(key, now))),
    record: (options) =>
      Effect.tap(store.record(options), (transition) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          const entry = touch(options.key, now)
          if (options.outcome === "Failure") entry.failures += 1
          if (options.outcome === "Success") entry.failures = 0
          if (transition?.to === "Open" && transition.from === "Closed") entry.openedAt = now
          if (transition?.to === "Closed") {
            entry.openedAt = null
            entry.failures = 0
          }
        })),
    state: store.state
  })

  const list = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    for (const [key, entry] of seen) {
      if (now - entry.lastAttemptAt > IDLE_MS) seen.delete(key)
    }
    const entries = [...seen].reverse()
    return yield* Effect.forEach(entries, ([key, entry]) =>
      store.state(key).pipe(
        Effect.map(stateOf),
        Effect.orElseSucceed(() => unknownState),
        Effect.map((state): Circuit => ({
          id: key,
          ...parseKey(key),
          ...state,
          failures: entry.failures,
          opened_at: state.state === "closed" || entry.openedAt === null ? null : Math.floor(entry.openedAt / 1000),
          last_attempt_at: Math.floor(entry.lastAttemptAt / 1000)
        }))
      ), { concurrency: 8 })
  })

  return Context.make(CircuitBoard, CircuitBoard.of({ list })).pipe(
    Context.add(CircuitBreaker.CircuitBreakerStore, watched)
  )
}))
