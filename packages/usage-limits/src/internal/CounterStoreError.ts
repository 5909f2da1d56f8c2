import { Data } from "effect"

/** The counters' store could not be reached; `GATEWAY_LIMITS_ON_STORE_ERROR` decides what follows. */
export class CounterStoreError extends Data.TaggedError("CounterStoreError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/** A store failure as the counters report it. */
export const storeError = (error: { readonly message: string }) =>
  new CounterStoreError({ message: `usage counters: ${error.message}`, cause: error })
