/**
 * Reads how long a provider asked us to wait from its answer's headers. Header names are lower
 * case, as the upstream client delivers them.
 */

const MILLIS = /^\d+(?:\.\d+)?$/
const SECONDS = /^\d+$/
// an HTTP date names its day and month; without a letter, Date.parse would read "1.5" as a date
const WORDS = /[a-z]/i

/** Milliseconds from a `retry-after-ms`-style value: a non-negative number. */
const millis = (value: string | undefined): number | undefined =>
  value !== undefined && MILLIS.test(value.trim()) ? Number(value.trim()) : undefined

/** Milliseconds from a `retry-after` value: whole seconds, or an HTTP date measured from `now`. */
const secondsOrDate = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined) return undefined
  const text = value.trim()
  if (SECONDS.test(text)) return Number(text) * 1000
  if (!WORDS.test(text)) return undefined
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/**
 * The wait a provider asked for, in milliseconds: `retry-after-ms`, else `x-ms-retry-after-ms`,
 * else `retry-after`; undefined when none is present and readable.
 */
export const requestedWait = (headers: Readonly<Record<string, string>>, now: number): number | undefined =>
  millis(headers["retry-after-ms"]) ?? millis(headers["x-ms-retry-after-ms"]) ??
    secondsOrDate(headers["retry-after"], now)
