/**
 * What a failure of `jose` means for the caller: the reason of the 401, and whether an operator
 * should hear about it (the key set could not be loaded, or jose failed in an unforeseen way).
 */
import { errors } from "jose"

/** Thrown by the remote key resolver when the JWKS could not be fetched or was not a key set. */
export class JwksUnavailable extends Error {
  constructor(options: { readonly cause: unknown }) {
    super("JWKS unavailable", options)
    this.name = "JwksUnavailable"
  }
}

export interface Rejection {
  readonly reason: string
  /** Set when the failure is the gateway's side (JWKS down, unforeseen error), not the caller's. */
  readonly log: boolean
  readonly cause: unknown
}

/** The cause chain's messages, for the log; jose and fetch never put the token in them. */
export const describeCause = (cause: unknown): string => {
  const messages: Array<string> = []
  for (let current = cause, depth = 0; current !== undefined && depth < 4; depth++) {
    if (!(current instanceof Error)) {
      messages.push(String(current))
      break
    }
    messages.push(current.message)
    current = current.cause
  }
  return messages.join(": ")
}

const claimReasons: Readonly<Record<string, string>> = {
  nbf: "JWT not yet valid",
  iss: "JWT issuer not accepted",
  aud: "JWT audience not accepted"
}

export const rejectionOf = (error: unknown): Rejection => {
  const caller = (reason: string): Rejection => ({ reason, log: false, cause: error })
  if (error instanceof JwksUnavailable) return { reason: "JWKS unavailable", log: true, cause: error.cause }
  if (error instanceof errors.JWTExpired) return caller("JWT expired")
  if (error instanceof errors.JWTClaimValidationFailed) {
    // The claim is a registered claim name chosen by jose, never a value taken from the token.
    const reason = Object.hasOwn(claimReasons, error.claim) ? claimReasons[error.claim] : undefined
    return caller(reason ?? `JWT ${error.claim} claim not accepted`)
  }
  if (error instanceof errors.JWKSNoMatchingKey) return caller("JWT signed by an unknown key")
  if (error instanceof errors.JWSSignatureVerificationFailed) return caller("JWT signature invalid")
  if (error instanceof errors.JOSEAlgNotAllowed) return caller("JWT algorithm not accepted")
  if (error instanceof errors.JOSENotSupported) return caller("JWT algorithm or header not supported")
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return caller("JWT malformed")
  return { reason: "JWT not accepted", log: true, cause: error }
}

/** Whether a failure of the remote key resolver is about the token rather than about the key set. */
export const isKeySelectionFailure = (error: unknown): boolean =>
  error instanceof errors.JWKSNoMatchingKey
  || error instanceof errors.JWKSMultipleMatchingKeys
  || error instanceof errors.JOSENotSupported
