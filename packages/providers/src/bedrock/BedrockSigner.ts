/**
 * AWS Signature Version 4 for Bedrock calls, with Smithy's maintained signer (the one the AWS SDK
 * for JavaScript uses). Documented behaviour relied on: every Bedrock runtime request is signed
 * for service `bedrock` in the target's region; temporary credentials add `x-amz-security-token`
 * to the signed headers; the payload's SHA-256 is sent as `x-amz-content-sha256`, as the SDK does.
 */
import { Sha256 } from "@aws-crypto/sha256-js"
import { SignatureV4 } from "@smithy/signature-v4"

export interface Credentials {
  readonly accessKeyId: string
  readonly secretAccessKey: string
  readonly sessionToken?: string | undefined
}

export interface SignerOptions {
  readonly credentials: Credentials
  readonly region: string
  /** `bedrock` unless a test vector names another service. */
  readonly service?: string | undefined
  /** Sends the payload hash as `x-amz-content-sha256` (default true; AWS's test suite vectors omit it). */
  readonly applyChecksum?: boolean | undefined
}

export interface SignableRequest {
  readonly method: string
  readonly url: URL
  /** Lower-case names; `host` is added from the URL. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly date: Date
}

export type Signer = (request: SignableRequest) => Promise<Record<string, string>>

/**
 * A signer for one set of credentials: returns the request's headers with `authorization`,
 * `x-amz-date` (and `x-amz-security-token`, `x-amz-content-sha256`) added.
 *
 * @example
 * const sign = BedrockSigner.make({ credentials: { accessKeyId, secretAccessKey }, region: "us-east-1" })
 * const headers = await sign({ method: "POST", url, headers: { "content-type": "application/json" }, body, date })
 */
export const make = (options: SignerOptions): Signer => {
  const credentials = options.credentials.sessionToken === undefined
    ? { accessKeyId: options.credentials.accessKeyId, secretAccessKey: options.credentials.secretAccessKey }
    : { ...options.credentials, sessionToken: options.credentials.sessionToken }
  const signer = new SignatureV4({
    credentials,
    region: options.region,
    service: options.service ?? "bedrock",
    sha256: Sha256,
    applyChecksum: options.applyChecksum ?? true
  })
  return async (request) => {
    const query: Record<string, string> = {}
    for (const [key, value] of request.url.searchParams) query[key] = value
    const signed = await signer.sign({
      method: request.method,
      protocol: request.url.protocol,
      hostname: request.url.hostname,
      path: request.url.pathname,
      query,
      headers: { ...request.headers, host: request.url.host },
      body: request.body
    }, { signingDate: request.date })
    return { ...signed.headers }
  }
}
