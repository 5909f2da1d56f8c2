/** Reading a request the way every fake records it, and the port a fake listens on. */
import type { IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"

export const readText = async (request: IncomingMessage): Promise<string> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of request) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks).toString("utf8")
}

/** The parsed JSON body, or the raw text when it is not JSON ("" when there is none). */
export const parseBody = (text: string): unknown => {
  if (text === "") return ""
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Lower-case header names; repeated headers joined with ", ". */
export const headerRecord = (request: IncomingMessage): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return headers
}

export const addressOf = (address: string | AddressInfo | null): AddressInfo => {
  if (address === null || typeof address === "string") throw new Error("the fake is not listening on TCP")
  return address
}
