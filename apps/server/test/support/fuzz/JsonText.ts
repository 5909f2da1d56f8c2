/**
 * JSON values as the fuzz writes and reads them: text JSON.stringify cannot write (1e400, -0),
 * how deep a text nests, copies with one member changed, and why a text is not a JSON object.
 */

export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
export type JsonRecord = { readonly [key: string]: Json }
export type Path = ReadonlyArray<string | number>

/** JSON text written into the output as is: JSON.stringify cannot write 1e400, -0 or cheap big arrays. */
export const raw = (text: string): string => `\u0000raw:${text}`
const RAW = /"\\u0000raw:([^"\\]*)"/g
export const toText = (value: Json): string => JSON.stringify(value).replace(RAW, "$1")
export const rawNumber = (value: string): number | undefined =>
  value.startsWith("\u0000raw:") ? Number(value.slice(5)) : undefined
export const short = (value: Json): string => {
  const text = toText(value)
  return text.length > 60 ? `${text.slice(0, 57)}…` : text
}

export type Kind = "null" | "boolean" | "number" | "string" | "array" | "object"
export const kindOf = (value: Json): Kind => {
  if (value === null) return "null"
  if (Array.isArray(value)) return "array"
  if (typeof value === "string") return rawNumber(value) === undefined ? "string" : "number"
  if (typeof value === "object") return "object"
  return typeof value === "boolean" ? "boolean" : "number"
}
export const isRecord = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)
const isJson = (value: unknown): value is Json =>
  value === null || ["boolean", "number", "string"].includes(typeof value) || Array.isArray(value) || isRecord(value)

/** What `text` parses to, or undefined when it is not JSON. */
export const parsedJson = (text: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}

/** Why text must be refused where a JSON object is expected; undefined for an object (or a BOM case). */
export const refusalOfText = (text: string, what: string): string | undefined => {
  if (text.startsWith("\ufeff")) return undefined
  const parsed = parsedJson(text)
  if (parsed === undefined) return `${what} is not valid JSON`
  return isRecord(parsed.value) ? undefined : `${what} is JSON but not an object`
}

/** How deep the text has nested at its end: a value written there starts one level below. */
export const openDepth = (text: string): number => {
  let depth = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const char = text[index]
    if (inString) {
      if (char === "\\") index++
      else if (char === "\"") inString = false
    } else if (char === "\"") inString = true
    else if (char === "{" || char === "[") depth++
    else if (char === "}" || char === "]") depth--
  }
  return depth
}

export type Nesting = "object" | "array" | "mixed"
/** A value nested `levels` deep, as text (JSON.stringify would recurse once a level). */
export const nestedText = (levels: number, nesting: Nesting): string => {
  if (nesting === "array") return "[".repeat(levels) + "1" + "]".repeat(levels)
  if (nesting === "object") return "{\"p\":".repeat(levels - 1) + "{\"p\":1" + "}".repeat(levels)
  const pairs = Math.floor(levels / 2)
  return "{\"p\":[".repeat(pairs) + (levels % 2 === 1 ? "[1]" : "1") + "]}".repeat(pairs)
}

/** A copy of `base` with `value` at `path` (undefined deletes); not applied when the parent is missing. */
export const setAt = (base: JsonRecord, path: Path, value: Json | undefined) => {
  const copy: Record<string, unknown> = structuredClone(base)
  let parent: unknown = copy
  for (const step of path.slice(0, -1)) {
    parent = isRecord(parent) || Array.isArray(parent) ? Reflect.get(parent, step) : undefined
  }
  const last = path.at(-1)
  const target = isRecord(parent) || Array.isArray(parent) ? parent : undefined
  const applied = last !== undefined && target !== undefined
  if (applied && value === undefined) Reflect.deleteProperty(target, last)
  // defined, not assigned: assigning "__proto__" would set the prototype, not a member
  else if (applied) Object.defineProperty(target, last, { value, enumerable: true, writable: true, configurable: true })
  const record: Record<string, Json> = {}
  for (const [key, member] of Object.entries(copy)) {
    if (isJson(member)) Object.defineProperty(record, key, { value: member, enumerable: true, writable: true })
  }
  return { applied, value: record }
}
