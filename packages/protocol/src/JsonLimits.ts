/**
 * Limits of JSON input (extensions.md, "Limits of input"): a body or a JSON header value nested
 * deeper than {@link MAX_DEPTH} levels is refused before it is parsed, so neither the parser nor
 * any code that walks the value later can be made to recurse without bound.
 *
 * @since 0.2.0
 */

/** The deepest nesting accepted; the outermost object or array is level 1. @since 0.2.0 */
export const MAX_DEPTH = 64

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d

/**
 * Whether JSON text (as UTF-8 bytes or as a string) nests objects and arrays more than `limit`
 * levels deep. One pass over the text, brackets inside strings ignored; the text need not be
 * valid JSON (the parser judges that afterwards).
 *
 * @example
 * import { JsonLimits } from "@switchyard/protocol"
 * JsonLimits.exceedsDepth("[[1]]", 1) // true
 * JsonLimits.exceedsDepth('{"a":"[[["}', 1) // false
 *
 * @since 0.2.0
 */
export const exceedsDepth = (text: Uint8Array | string, limit: number = MAX_DEPTH): boolean => {
  if (fewOpenings(text, limit)) return false
  const length = text.length
  const isString = typeof text === "string"
  let depth = 0
  let inString = false
  for (let index = 0; index < length; index++) {
    const code = isString ? text.charCodeAt(index) : text[index]
    if (inString) {
      if (code === BACKSLASH) index++
      else if (code === QUOTE) inString = false
    } else if (code === QUOTE) {
      inString = true
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > limit) return true
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--
    }
  }
  return false
}

/**
 * Whether `text` opens at most `limit` objects and arrays in all, so it cannot nest deeper: the
 * usual body, told in a few native searches rather than a pass over every character (~10,000
 * instructions for a small chat request's body, callgrind).
 */
const fewOpenings = (text: Uint8Array | string, limit: number): boolean =>
  typeof text === "string"
    ? count(text, "{", limit) + count(text, "[", limit) <= limit
    : count(text, OPEN_BRACE, limit) + count(text, OPEN_BRACKET, limit) <= limit

/** How often `text` holds `item` (natively searched), counted up to one more than `limit`. */
const count = <I>(
  text: { readonly indexOf: (item: I, from?: number) => number },
  item: I,
  limit: number
): number => {
  let found = 0
  for (let at = text.indexOf(item); at !== -1 && found <= limit; at = text.indexOf(item, at + 1)) found++
  return found
}

/** The rule as a 400 message says it, after the name of the field. @since 0.2.0 */
export const depthRule = `must not be nested deeper than ${MAX_DEPTH} levels of objects and arrays`
