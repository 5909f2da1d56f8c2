/**
 * `default.validUrls {onlyDNS, not}`: every URL in the text is well formed (syntax only, no
 * network). With `onlyDNS` a host must be a DNS name, not an IP address. No URL at all fails.
 */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { Not } from "./Parameters.ts"

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`)\]]+/gi
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/

const isDnsName = (host: string): boolean => {
  const labels = host.replace(/\.$/, "").split(".")
  return labels.length >= 2 && labels.every((label) => LABEL.test(label)) && !/^\d+$/.test(labels.at(-1) ?? "")
}

const isValid = (candidate: string, onlyDNS: boolean): boolean => {
  // trailing punctuation ends a sentence, not the URL
  const trimmed = candidate.replace(/[.,;:!?]+$/, "")
  let url: URL
  try {
    url = new URL(trimmed)
  } catch {
    return false
  }
  const host = url.hostname
  if (host.startsWith("[") || IPV4.test(host)) return !onlyDNS
  return isDnsName(host) || (!onlyDNS && host === "localhost")
}

export const validUrls = Check.make({
  id: "default.validUrls",
  parameters: Schema.Struct({ onlyDNS: Schema.optionalKey(Schema.Boolean), not: Not }),
  run: (context, { not, onlyDNS }) =>
    Effect.sync(() => {
      const urls = Check.textOf(context).match(URL_PATTERN) ?? []
      const invalid = urls.filter((url) => !isValid(url, onlyDNS === true)).length
      return Check.verdict(urls.length > 0 && invalid === 0, not, {
        holds: `all ${urls.length} URLs are valid`,
        fails: urls.length === 0 ? "the text holds no URL" : `${invalid} of ${urls.length} URLs are invalid`
      }, { urls: urls.length, invalid })
    })
})
