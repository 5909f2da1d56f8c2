/**
 * A test service account (a fresh RSA key pair) and the token endpoint's check of a JWT-bearer
 * assertion (developers.google.com/identity/protocols/oauth2/service-account): RS256 over
 * `header.payload`, `iss` the account's email, `aud` the token URI, a `scope`, and `iat`/`exp`
 * no more than an hour apart.
 */
import { generateKeyPairSync, type KeyObject, verify } from "node:crypto"

export interface TestServiceAccount {
  /** The key file as the Cloud console downloads it. */
  readonly json: Readonly<Record<string, string>>
  readonly publicKey: KeyObject
}

export const makeServiceAccount = (project: string, tokenUri: string): TestServiceAccount => {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
  return {
    json: {
      type: "service_account",
      project_id: project,
      private_key_id: "fake-key-1",
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      client_email: `gateway@${project}.iam.gserviceaccount.com`,
      client_id: "100000000000000000001",
      token_uri: tokenUri
    },
    publicKey
  }
}

const decodePart = (part: string): unknown => {
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8"))
  } catch {
    return undefined
  }
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The first rule the assertion breaks, or undefined when Google would accept it. */
export const checkAssertion = (jwt: string, account: TestServiceAccount): string | undefined => {
  const [header, payload, signature, ...rest] = jwt.split(".")
  if (header === undefined || payload === undefined || signature === undefined || rest.length > 0) {
    return "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe"
  }
  const head = decodePart(header)
  const claims = decodePart(payload)
  if (!isRecord(head) || head.alg !== "RS256") return "Invalid JWT: the algorithm must be RS256"
  const signed = verify(
    "RSA-SHA256",
    Buffer.from(`${header}.${payload}`),
    account.publicKey,
    Buffer.from(signature, "base64url")
  )
  if (!signed) return "Invalid JWT Signature."
  if (!isRecord(claims)) return "Invalid JWT: no claims"
  if (claims.iss !== account.json.client_email) return "Invalid JWT: iss is not the service account"
  if (claims.aud !== account.json.token_uri) return "Invalid JWT: aud must be the token URI"
  if (typeof claims.scope !== "string" || claims.scope === "") {
    return "Invalid OAuth scope or ID token audience provided."
  }
  const iat = claims.iat
  const exp = claims.exp
  if (typeof iat !== "number" || typeof exp !== "number" || exp <= iat || exp - iat > 3600) {
    return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe."
  }
  return undefined
}
