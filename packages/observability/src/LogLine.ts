/**
 * One log event as one line (extensions.md, "Running it", logs): `json` is one object per line
 * for machines; `pretty` is for a person at a terminal. Both show the same fields.
 */

export type LogFormat = "json" | "pretty"

export type Level = "debug" | "info" | "warn" | "error"

/** A field's value: any JSON value (an annotation may be an object); absent fields are left out. */
export type FieldValue = unknown

export interface LogEvent {
  readonly time: Date
  readonly level: Level
  readonly message: string
  readonly fields: Readonly<Record<string, FieldValue>>
  /** A failure's cause, already rendered (stack and all); only in error events. */
  readonly cause?: string | undefined
}

export const format = (event: LogEvent, as: LogFormat): string => as === "json" ? json(event) : pretty(event)

/**
 * `Date#toISOString`, with the text up to the second made once a second: formatting the whole
 * date took a third of an access line's time, and a busy gateway writes thousands a second.
 */
const isoTime = (() => {
  let headSecond = Number.NaN
  let head = ""
  return (time: Date): string => {
    const ms = time.getTime()
    const start = Math.floor(ms / 1000) * 1000
    if (start !== headSecond) {
      // throws for an invalid date, as toISOString does
      const text = time.toISOString()
      headSecond = start
      // everything up to the milliseconds: "2026-11-25T02:43:35."
      head = text.slice(0, text.length - 4)
    }
    const millis = ms - start
    return `${head}${millis < 10 ? "00" : millis < 100 ? "0" : ""}${millis}Z`
  }
})()

const json = (event: LogEvent): string => spliced(event) ?? recordJson(event)

/**
 * The fields' own JSON spliced in after the fixed members: no second object to copy every field
 * into (a third of an access line's formatting). Only when that text is the one `recordJson`
 * writes, else undefined: no field shadows a fixed member, `toJSON` or `__proto__`, none is
 * inherited (for-in copies those, JSON leaves them out), none is ordered before the fixed ones
 * (an index, whose name starts with a digit), and every value has a JSON form.
 */
const spliced = (event: LogEvent): string | undefined => {
  const fields = event.fields
  const prototype: unknown = Object.getPrototypeOf(fields)
  if (prototype !== Object.prototype && prototype !== null) return undefined
  if (
    "time" in fields || "level" in fields || "msg" in fields || "cause" in fields || "toJSON" in fields ||
    Object.hasOwn(fields, "__proto__")
  ) return undefined
  let body: string
  try {
    body = JSON.stringify(fields)
  } catch {
    return undefined
  }
  const first = body.charCodeAt(2)
  if (first >= 48 && first <= 57) return undefined
  const head = `{"time":"${isoTime(event.time)}","level":"${event.level}","msg":${JSON.stringify(event.message)}`
  const cause = event.cause === undefined ? "" : `,"cause":${JSON.stringify(event.cause)}`
  return `${head}${body.length === 2 ? "" : `,${body.slice(1, -1)}`}${cause}}`
}

const recordJson = (event: LogEvent): string => {
  const record: Record<string, unknown> = {
    time: isoTime(event.time),
    level: event.level,
    msg: event.message
  }
  for (const name in event.fields) {
    const value = event.fields[name]
    if (value !== undefined) record[name] = value
  }
  if (event.cause !== undefined) record.cause = event.cause
  // without a replacer V8 takes its fast path (half the time an access line took with one); only
  // a line holding a value JSON has no form for is written again, with one
  try {
    return JSON.stringify(record)
  } catch {
    return JSON.stringify(record, jsonSafe)
  }
}

/** A value JSON has no form for is written as text rather than failing the whole line. */
const jsonSafe = (_key: string, value: unknown): unknown => typeof value === "bigint" ? String(value) : value

const prettyValue = (value: unknown): string => {
  if (typeof value === "string") return /[\s"=]/.test(value) ? JSON.stringify(value) : value
  return typeof value === "object" && value !== null ? JSON.stringify(value, jsonSafe) : String(value)
}

const levelLabels: Readonly<Record<Level, string>> = { debug: "DEBUG", info: "INFO ", warn: "WARN ", error: "ERROR" }

const pretty = (event: LogEvent): string => {
  let line = `${isoTime(event.time)} ${levelLabels[event.level]} ${event.message}`
  for (const name in event.fields) {
    const value = event.fields[name]
    if (value !== undefined) line += ` ${name}=${prettyValue(value)}`
  }
  // the cause keeps its own lines, indented under the event it belongs to
  return event.cause === undefined ? line : `${line}\n  ${event.cause.replaceAll("\n", "\n  ")}`
}
