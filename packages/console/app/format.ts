/** How the console writes times, money and numbers. */

/** Unix seconds as a local date and time, to the second. */
export const time = (seconds: number | null | undefined): string =>
  seconds === null || seconds === undefined ? "—" : new Date(seconds * 1000).toLocaleString()

/** US dollars: cents for large amounts, more digits for the fractions a single request costs. */
export const usd = (value: number | null | undefined): string => {
  if (value === null || value === undefined) return "—"
  if (value === 0) return "$0"
  return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toPrecision(3)}`
}

export const count = (value: number | null | undefined): string =>
  value === null || value === undefined ? "—" : value.toLocaleString("en-US")

export const ms = (value: number | null | undefined): string =>
  value === null || value === undefined ? "—" : `${Math.round(value).toLocaleString("en-US")} ms`

/** A value of unknown shape, for detail views: JSON, indented. */
export const json = (value: unknown): string => JSON.stringify(value, null, 2) ?? "null"
