/**
 * What the generators make: a request with the words for it and, when the spec says so, why it
 * must be refused; and the headers every request starts from, which select the fake as provider.
 */
import { ADMIN_KEY } from "../GatewayProcess.ts"

export interface FuzzRequest {
  /** What was generated, in words: the first thing to read in a failure. */
  readonly label: string
  readonly method: "POST" | "PUT"
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** Why the spec says the gateway must refuse it (4xx); undefined when a 2xx is fine too. */
  readonly refuse: string | undefined
}

/** Something generated, with what it is and whether the spec refuses it. */
export interface Case<A> {
  readonly value: A
  readonly label: string
  readonly refuse: string | undefined
}

/** What the gateway talks to. */
export interface World {
  /** The fake's base URL, `http://127.0.0.1:PORT/v1`: the only upstream. */
  readonly fakeUrl: string
  /** A stored config's id, for `PUT /v1/configs/:id`. */
  readonly configId: string
}

export const JSON_HEADERS = { "content-type": "application/json", "x-gateway-api-key": ADMIN_KEY }
export const viaFake = (world: World): Readonly<Record<string, string>> => ({
  ...JSON_HEADERS,
  "x-gateway-provider": "openai",
  "x-gateway-custom-host": world.fakeUrl,
  authorization: "Bearer sk-fuzz"
})

/** A value fetch accepts as a header: printable ASCII (it throws on CR, LF, NUL and code points over 255). */
export const headerSafe = (value: string): string => value.replace(/[^\x20-\x7e]/g, "?")
