/**
 * Checks a request's AWS Signature V4 the way AWS does: recompute it from the signed headers with
 * the known credentials (Smithy's SignatureV4, the AWS SDK's own signer) and compare. The error
 * names and messages are those AWS answers with.
 */
import { Sha256 } from "@aws-crypto/sha256-js"
import { SignatureV4 } from "@smithy/signature-v4"
import { createHash } from "node:crypto"

export interface Credentials {
  readonly accessKeyId: string
  readonly secretAccessKey: string
  readonly sessionToken?: string | undefined
}

export interface SignatureFailure {
  readonly status: number
  readonly errorType: string
  readonly message: string
}

export interface SignedRequest {
  readonly method: string
  /** The request target as received, query string included. */
  readonly target: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

const failure = (errorType: string, message: string): SignatureFailure => ({ status: 403, errorType, message })

const MISMATCH = "The request signature we calculated does not match the signature you provided. " +
  "Check your AWS Secret Access Key and signing method. Consult the service documentation for details."

const authorizationPattern =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/

/** undefined when the signature holds; otherwise what AWS would answer. */
export const verify = async (
  request: SignedRequest,
  credentials: Credentials,
  region: string
): Promise<SignatureFailure | undefined> => {
  const authorization = request.headers.authorization
  if (authorization === undefined) return failure("MissingAuthenticationTokenException", "Missing Authentication Token")
  const match = authorizationPattern.exec(authorization)
  const date = request.headers["x-amz-date"]
  if (match === null || date === undefined) {
    return failure(
      "IncompleteSignatureException",
      "Authorization header requires Credential, SignedHeaders and Signature."
    )
  }
  const [, keyId, day, scopeRegion, service, signedHeaders] = match
  if (keyId !== credentials.accessKeyId) {
    return failure("UnrecognizedClientException", "The security token included in the request is invalid.")
  }
  if (scopeRegion !== region || service !== "bedrock" || !date.startsWith(day ?? "")) {
    return failure(
      "InvalidSignatureException",
      `Credential should be scoped to a valid region and service bedrock. ${MISMATCH}`
    )
  }
  if (credentials.sessionToken !== undefined && request.headers["x-amz-security-token"] !== credentials.sessionToken) {
    return failure("UnrecognizedClientException", "The security token included in the request is invalid.")
  }
  const payloadHash = request.headers["x-amz-content-sha256"]
  if (payloadHash !== undefined && payloadHash !== createHash("sha256").update(request.body).digest("hex")) {
    return failure("InvalidSignatureException", MISMATCH)
  }
  const names = (signedHeaders ?? "").split(";")
  if (!names.includes("host") || !names.includes("x-amz-date")) return failure("InvalidSignatureException", MISMATCH)
  const headers: Record<string, string> = {}
  for (const name of names) headers[name] = request.headers[name] ?? ""
  const [path = "/", search = ""] = request.target.split("?")
  const query: Record<string, string> = {}
  for (const [key, value] of new URLSearchParams(search)) query[key] = value
  const identity = credentials.sessionToken === undefined
    ? { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey }
    : { ...credentials, sessionToken: credentials.sessionToken }
  const signer = new SignatureV4({
    credentials: identity,
    region,
    service: "bedrock",
    sha256: Sha256,
    applyChecksum: false
  })
  const expected = await signer.sign(
    { method: request.method, protocol: "http:", hostname: "127.0.0.1", path, query, headers, body: request.body },
    { signingDate: parseAmzDate(date) }
  )
  return expected.headers.authorization === authorization ? undefined : failure("InvalidSignatureException", MISMATCH)
}

/** `20150830T123600Z` → the Date it names. */
const parseAmzDate = (value: string): Date =>
  new Date(
    `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}T${value.slice(9, 11)}:${value.slice(11, 13)}:${
      value.slice(13, 15)
    }Z`
  )
