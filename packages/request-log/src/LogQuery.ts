/**
 * The query of `GET /v1/logs`: the list rules every list shares (`limit`, `order`, `after`,
 * `before`) and the log's filters, `trace_id`, `status`, `provider`, `model`, `api_key_id`, and
 * the time window `from`, `to` (unix seconds, both included). A bad value is a 400 naming the
 * field and its rule.
 */
import { InvalidInput, ListQuery } from "@switchyard/protocol"
import { Schema } from "effect"

const nonEmpty = Schema.String.check(Schema.isMinLength(1, { message: "must not be empty" }))
const isInt = Schema.isInt({ message: "must be an integer" })
const unixSeconds = Schema.NumberFromString.check(
  isInt,
  Schema.isGreaterThanOrEqualTo(0, { message: "must be unix seconds, at least 0" })
)

export const LogQuery = Schema.Struct({
  ...ListQuery.ListQuery.fields,
  trace_id: Schema.optionalKey(nonEmpty),
  status: Schema.optionalKey(
    Schema.NumberFromString.check(
      isInt,
      Schema.isBetween({ minimum: 100, maximum: 599 }, { message: "must be an HTTP status between 100 and 599" })
    )
  ),
  provider: Schema.optionalKey(nonEmpty),
  model: Schema.optionalKey(nonEmpty),
  api_key_id: Schema.optionalKey(nonEmpty),
  from: Schema.optionalKey(unixSeconds),
  to: Schema.optionalKey(unixSeconds)
})
export type LogQuery = typeof LogQuery.Type

/** The query parameters `GET /v1/logs` reads; any other is ignored, as on the other lists. */
export const parameters = [
  "limit",
  "order",
  "after",
  "before",
  "trace_id",
  "status",
  "provider",
  "model",
  "api_key_id",
  "from",
  "to"
] as const

/**
 * Decodes a URL's query (`?status=500&from=1732400000`); fails with InvalidInput naming the field.
 *
 * @example
 * import { LogQuery } from "@switchyard/request-log"
 * const query = LogQuery.decode(new URLSearchParams("status=500&limit=50"))
 */
export const decode = (search: URLSearchParams) => {
  const present: Record<string, string> = {}
  for (const name of parameters) {
    const value = search.get(name)
    if (value !== null) present[name] = value
  }
  return decodeQuery(present)
}

const decodeQuery = InvalidInput.decodeInput(LogQuery)
