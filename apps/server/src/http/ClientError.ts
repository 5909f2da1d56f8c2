/**
 * Answers what node:http refuses before any route sees a request (headers too slow, too large,
 * or not HTTP), in the same JSON envelope as every other error, then closes the connection.
 * There is no request or response object at this point: the answer is written to the socket.
 */
import { GatewayError } from "@switchyard/core"
import type { Duplex } from "node:stream"

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: "Bad Request",
  408: "Request Timeout",
  413: "Payload Too Large",
  431: "Request Header Fields Too Large"
}

const failureOf = (code: string | undefined): { readonly status: number; readonly message: string } => {
  switch (code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, message: "request: the headers or the body did not arrive in time" }
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, message: "headers: larger than the server accepts" }
    default:
      return { status: 400, message: "request: is not a valid HTTP request" }
  }
}

const codeOf = (error: Error): string | undefined =>
  "code" in error && typeof error.code === "string" ? error.code : undefined

export const answer = (error: Error, socket: Duplex): void => {
  const code = codeOf(error)
  // the client is gone, or an answer is already on its way: nothing more can be said
  if (code === "ECONNRESET" || !socket.writable) return void socket.destroy()
  const { message, status } = failureOf(code)
  const failure = status === 408
    ? new GatewayError.ClientTimeout({ message })
    : new GatewayError.InvalidRequest({ message, param: null })
  const body = JSON.stringify({
    error: { ...GatewayError.toHttp(failure).body.error, ...(status === 431 ? { code: "header_overflow" } : {}) }
  })
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  )
}
