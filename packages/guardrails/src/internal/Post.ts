/**
 * The HTTP calls of the checks that call out (webhook, log, the jwt check's key set). Their URLs
 * come from callers, so every call goes through an undici Agent whose connections the
 * `TrustedHosts` in context guards: the address actually connected to must be public or listed,
 * and a refusal fails the check, naming the parameter, before any packet is sent. Redirects are
 * not followed, so no answer can send a call somewhere else.
 */
import { TrustedHosts } from "@switchyard/core"
import { Duration, Effect } from "effect"
import { Agent, buildConnector, request } from "undici"
import { CheckError } from "../Check.ts"

const agents = new WeakMap<TrustedHosts.TrustedHosts, Agent>()

/** One pooled Agent per policy (a server has one), kept for the life of the process. */
const agentFor = (hosts: TrustedHosts.TrustedHosts): Agent => {
  const known = agents.get(hosts)
  if (known !== undefined) return known
  const agent = new Agent({
    connect: TrustedHosts.guardConnector(hosts, buildConnector({ lookup: TrustedHosts.lookup(hosts) }))
  })
  agents.set(hosts, agent)
  return agent
}

export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
}

/**
 * One guarded call, as a promise for libraries that want a fetch (jose's key sets). It rejects
 * with the refusal itself when the host may not be reached: {@link reasonOf} words it.
 */
export const send = (
  hosts: TrustedHosts.TrustedHosts,
  url: string,
  init: {
    readonly method: "GET" | "POST"
    readonly headers?: Readonly<Record<string, string>> | undefined
    readonly body?: string | undefined
    readonly signal?: AbortSignal | undefined
  }
): Promise<Answer> =>
  request(url, {
    dispatcher: agentFor(hosts),
    method: init.method,
    headers: { ...init.headers },
    body: init.body ?? null,
    signal: init.signal ?? null
  }).then(async (response) => {
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) headers[name] = typeof value === "string" ? value : value.join(", ")
    }
    return { status: response.statusCode, headers, text: await response.body.text() }
  })

/** Why a call failed; a refused host reads like the 400 a config naming it gets, naming `field`. */
export const reasonOf = (error: unknown, field: string): string => {
  const refused = TrustedHosts.untrustedIn(error)
  if (refused !== undefined) return TrustedHosts.invalidRequest(field, refused).message
  return error instanceof Error ? error.message : String(error)
}

/**
 * POSTs `body` as JSON and answers the parsed JSON reply; fails on a non-2xx, a bad reply, the
 * time limit, or a host that may not be reached (`field` names the parameter the URL came from).
 */
export const postJson = (
  url: string,
  body: unknown,
  options: {
    readonly headers?: Readonly<Record<string, string>> | undefined
    readonly timeoutMs: number
    readonly field: string
  }
): Effect.Effect<unknown, CheckError> =>
  TrustedHosts.TrustedHosts.use((hosts) =>
    Effect.tryPromise({
      try: async (signal) => {
        const answer = await send(hosts, url, {
          method: "POST",
          headers: { "content-type": "application/json", ...options.headers },
          body: JSON.stringify(body),
          signal
        })
        if (answer.status < 200 || answer.status >= 300) throw new Error(`${url} answered ${answer.status}`)
        return answer.text.length === 0 ? undefined : JSON.parse(answer.text)
      },
      catch: (error) => new CheckError({ message: reasonOf(error, options.field) })
    })
  ).pipe(
    // Effect's clock bounds the call; interruption aborts the request through `signal`
    Effect.timeoutOrElse({
      duration: Duration.millis(options.timeoutMs),
      orElse: () => Effect.fail(new CheckError({ message: `${url}: no answer within ${options.timeoutMs} ms` }))
    })
  )
