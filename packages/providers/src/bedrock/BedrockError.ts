/**
 * Bedrock's errors in the gateway's envelope. Documented behaviour relied on: a failed call
 * answers its HTTP status with a JSON body `{"message": "…"}` (some services spell it `Message`)
 * and names the error in the `x-amzn-errortype` header (`ValidationException:http://…`) or in
 * the body's `__type` (`com.amazon.coral.service#UnrecognizedClientException`). ConverseStream
 * reports failures after the 200 as exception frames (`:exception-type: throttlingException`).
 */
import { GatewayError } from "@switchyard/core"

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** The bare error name: no `#` namespace, no `:` suffix. */
const bareType = (raw: string | undefined): string | undefined => {
  if (raw === undefined || raw === "") return undefined
  const afterHash = raw.slice(raw.lastIndexOf("#") + 1)
  const colon = afterHash.indexOf(":")
  return colon === -1 ? afterHash : afterHash.slice(0, colon)
}

export const envelope = (message: string, type: string) => ({
  error: { message, type, param: null, code: null }
})

/** Keeps Bedrock's status and headers; its message and error type become the envelope's. */
export const fromHttpError = (error: GatewayError.UpstreamStatus): GatewayError.UpstreamStatus => {
  const body = error.body
  const message = isRecord(body) && typeof body.message === "string"
    ? body.message
    : isRecord(body) && typeof body.Message === "string"
    ? body.Message
    : typeof body === "string" && body !== ""
    ? body
    : `bedrock answered ${error.status}`
  const type = bareType(error.headers["x-amzn-errortype"]) ??
    (isRecord(body) && typeof body.__type === "string" ? bareType(body.__type) : undefined) ?? "upstream_error"
  return new GatewayError.UpstreamStatus({ ...error, body: envelope(message, type) })
}

/** HTTP status of each ConverseStream exception event, as the API reference lists them. */
const exceptionStatus: Readonly<Record<string, number>> = {
  validationException: 400,
  accessDeniedException: 403,
  resourceNotFoundException: 404,
  modelTimeoutException: 408,
  modelStreamErrorException: 424,
  throttlingException: 429,
  modelNotReadyException: 429,
  internalServerException: 500,
  serviceUnavailableException: 503
}

/** An exception frame of a stream that had already begun. */
export const fromStreamException = (
  type: string,
  message: string,
  headers: Readonly<Record<string, string>>
): GatewayError.UpstreamStatus =>
  new GatewayError.UpstreamStatus({
    provider: "bedrock",
    status: exceptionStatus[type] ?? 500,
    body: envelope(message, type),
    headers
  })
