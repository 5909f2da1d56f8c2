/**
 * The gateway's management API, as the console calls it: same origin, the key in
 * `x-gateway-api-key`, failures as {@link ApiError} with the gateway's own message.
 */
import { apiKey } from "./session.ts"

export class ApiError extends Error {
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.status = status
  }
}

/** The list shape every list route answers. */
export interface List<A> {
  readonly object: "list"
  readonly data: ReadonlyArray<A>
  readonly has_more?: boolean
  readonly last_id?: string | null
}

const messageOf = (status: number, body: unknown): string => {
  if (typeof body === "object" && body !== null && "error" in body) {
    const error = body.error
    if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") {
      return error.message
    }
  }
  return `the gateway answered ${status}`
}

/** GET `path` with `key` (the signed-in key unless given), as JSON. */
export const get = async <A>(path: string, key: string | null = apiKey()): Promise<A> => {
  const response = await fetch(path, {
    headers: key === null ? {} : { "x-gateway-api-key": key },
    cache: "no-store",
    credentials: "omit"
  })
  const body: unknown = await response.json().catch(() => undefined)
  if (!response.ok) throw new ApiError(response.status, messageOf(response.status, body))
  return body as A
}

/** What to tell the user about a failure, naming the scope a 403 lacks. */
export const explain = (error: unknown): string => {
  if (error instanceof ApiError) {
    if (error.status === 401) return `Signed-in key refused: ${error.message}`
    if (error.status === 403) return `This key may not see this page: ${error.message}`
    return error.message
  }
  return error instanceof Error ? error.message : String(error)
}

/** Query string of the filters that are set. */
export const query = (params: Readonly<Record<string, string | number | undefined>>): string => {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== "") search.set(name, String(value))
  }
  const text = search.toString()
  return text === "" ? "" : `?${text}`
}
