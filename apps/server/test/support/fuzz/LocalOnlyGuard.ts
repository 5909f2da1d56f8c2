/**
 * The guard that keeps the fuzz on this machine: every request is checked before it is sent, so
 * that no string the gateway could use names a host other than 127.0.0.1, and no request names
 * an integration the management fuzz may have created.
 */
import type { FuzzRequest } from "./FuzzRequest.ts"
import { isRecord, parsedJson } from "./JsonText.ts"

const URL_START = /https?:/gi
/** Headers the gateway parses as JSON: only the strings inside them can be used as URLs. */
const JSON_VALUED = new Set(["x-gateway-config", "x-gateway-metadata"])

/** Every string in JSON text, keys included; none when it does not parse (then the gateway uses none). */
const jsonStrings = (text: string): ReadonlyArray<string> => {
  const strings: Array<string> = []
  const parsed = parsedJson(text.replace(/^\ufeff/, ""))
  if (parsed === undefined) return strings
  const stack: Array<unknown> = [parsed.value]
  while (stack.length > 0) {
    const value = stack.pop()
    if (typeof value === "string") strings.push(value)
    else if (Array.isArray(value)) {
      // numbers hold no URL: long arrays of them are skipped cheaply
      for (const item of value) if (typeof item !== "number") stack.push(item)
    } else if (isRecord(value)) {
      for (const [key, member] of Object.entries(value)) stack.push(key, member)
    }
  }
  return strings
}

/** Throws when any string the gateway could use would parse as a URL to a host other than 127.0.0.1. */
export const assertLocalOnly = (request: FuzzRequest): void => {
  const strings = [...jsonStrings(request.body)]
  for (const [name, value] of Object.entries(request.headers)) {
    strings.push(name, ...(JSON_VALUED.has(name) ? jsonStrings(value) : [value]))
  }
  for (const text of strings) {
    // the URL parser drops tabs and newlines anywhere
    const normalized = text.replace(/[\t\n\r]/g, "")
    for (const match of normalized.matchAll(URL_START)) {
      const url = URL.parse(normalized.slice(match.index).split(/[\s"'<>\\]/)[0] ?? "")
      if (url !== null && url.hostname !== "" && url.hostname !== "127.0.0.1") {
        throw new Error(`the fuzz test generated a URL to ${url.hostname}: ${request.label}`)
      }
    }
  }
  if ([request.body, ...Object.values(request.headers)].some((text) => text.includes("@fz-int-"))) {
    throw new Error(`the fuzz test named an integration it may have created: ${request.label}`)
  }
}
