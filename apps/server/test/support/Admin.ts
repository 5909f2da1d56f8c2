/** Calls of the management routes, as a test drives them over HTTP. */
import { ADMIN_KEY } from "./GatewayProcess.ts"

export interface Call {
  readonly status: number
  // oxlint-disable-next-line no-explicit-any
  readonly body: any
  readonly text: string
}

export const call = async (
  baseUrl: string,
  method: string,
  path: string,
  options: { readonly key?: string | undefined; readonly body?: unknown; readonly headers?: Record<string, string> } =
    {}
): Promise<Call> => {
  const headers: Record<string, string> = { "content-type": "application/json", ...options.headers }
  const key = options.key === undefined ? ADMIN_KEY : options.key
  if (key !== "") headers["x-gateway-api-key"] = key
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
  })
  const text = await response.text()
  let body: unknown = undefined
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status: response.status, body, text }
}

/** A new API key with exactly these scopes, in `workspace` (default: the admin's). */
export const createKey = async (
  baseUrl: string,
  scopes: ReadonlyArray<string>,
  options: { readonly workspace?: string; readonly expiresAt?: number } = {}
): Promise<string> => {
  const created = await call(baseUrl, "POST", "/v1/api-keys", {
    body: {
      name: `key ${scopes.join(" ")}`,
      scopes,
      ...(options.workspace === undefined ? {} : { workspace_id: options.workspace }),
      ...(options.expiresAt === undefined ? {} : { expires_at: options.expiresAt })
    }
  })
  if (created.status !== 200) throw new Error(`creating a key failed: ${created.status} ${created.text}`)
  return created.body.key
}

export const chatVia = (baseUrl: string, key: string, headers: Record<string, string>, body: unknown) =>
  call(baseUrl, "POST", "/v1/chat/completions", { key, headers, body })
