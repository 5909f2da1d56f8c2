/** A JSON POST with a time limit, for the checks that call out (webhook, log). */
import { Duration, Effect } from "effect"
import { CheckError } from "../Check.ts"

/** POSTs `body` as JSON and answers the parsed JSON reply; fails on a non-2xx, a bad reply, or the time limit. */
export const postJson = (
  url: string,
  body: unknown,
  options: { readonly headers?: Readonly<Record<string, string>> | undefined; readonly timeoutMs: number }
): Effect.Effect<unknown, CheckError> =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...options.headers },
        body: JSON.stringify(body),
        signal
      })
      if (!response.ok) throw new Error(`${url} answered ${response.status}`)
      const text = await response.text()
      return text.length === 0 ? undefined : JSON.parse(text)
    },
    catch: (error) => new CheckError({ message: error instanceof Error ? error.message : String(error) })
  }).pipe(
    // Effect's clock bounds the call; interruption aborts the fetch through `signal`
    Effect.timeoutOrElse({
      duration: Duration.millis(options.timeoutMs),
      orElse: () => Effect.fail(new CheckError({ message: `${url}: no answer within ${options.timeoutMs} ms` }))
    })
  )
