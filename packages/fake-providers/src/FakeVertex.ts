/**
 * A fake Vertex AI on 127.0.0.1, with its own OAuth token endpoint. It makes a test service
 * account (`serviceAccount`, whose `token_uri` points at the fake); `POST /token` verifies the
 * JWT-bearer assertion's RS256 signature with that account's public key and issues tokens that
 * expire after `tokenLifetimeSeconds`. Model calls must carry one of those tokens and name the
 * fake's project and region: `/v1/projects/{p}/locations/{r}/publishers/google/models/{m}:generateContent`
 * (`:streamGenerateContent?alt=sse`), checked like the Gemini API, or `…/publishers/anthropic/
 * models/{m}:rawPredict` (`:streamRawPredict`), checked as Claude on Vertex, and Claude's
 * `…/models/count-tokens:rawPredict`.
 *
 * @example
 * ```ts
 * import { FakeVertex } from "@switchyard/fake-providers"
 *
 * const fake = await FakeVertex.start({ project: "demo", region: "us-central1" })
 * const target = { provider: "vertex-ai", custom_host: fake.baseUrl, cloud2_project_id: "demo",
 *   cloud2_region: "us-central1", cloud2_service_account_json: fake.serviceAccount }
 * fake.tokenRequests // how many tokens were asked for
 * await fake.close()
 * ```
 */
import { reply } from "./Behaviour.ts"
import { answerGemini, type GoogleBehaviour } from "./internal/google/GeminiAnswer.ts"
import { checkGenerateContent } from "./internal/google/GeminiRequestCheck.ts"
import { startGoogleServer, type Turn } from "./internal/google/GoogleFakeServer.ts"
import { type RecordedRequest, sendGoogleError, sendJson } from "./internal/google/GoogleHttp.ts"
import {
  anthropicError,
  checkRawPredict,
  countTokens,
  messageReply,
  writeMessageEvents
} from "./internal/vertex/AnthropicOnVertex.ts"
import { checkAssertion, makeServiceAccount } from "./internal/vertex/ServiceAccountKey.ts"

export interface FakeVertex {
  /** `http://127.0.0.1:PORT`: the aiplatform origin, to use as `custom_host`. */
  readonly baseUrl: string
  readonly project: string
  readonly region: string
  /** The test service account's key file; its `token_uri` is the fake's `/token`. */
  readonly serviceAccount: Readonly<Record<string, string>>
  /** Model calls and token requests, in order. */
  readonly requests: ReadonlyArray<RecordedRequest>
  /** How many token requests the fake answered (good or bad). */
  readonly tokenRequests: () => number
  /** The behaviour of the next model call. */
  readonly enqueue: (behaviour: GoogleBehaviour) => void
  readonly setDefault: (behaviour: GoogleBehaviour) => void
  /** The next token request answers this status and body instead of a token. */
  readonly failNextToken: (status: number, body: unknown) => void
  readonly reset: () => void
  readonly close: () => Promise<void>
}

export interface StartOptions {
  readonly project?: string
  readonly region?: string
  /** `expires_in` of issued tokens (default 3599, as Google answers). */
  readonly tokenLifetimeSeconds?: number
}

const MODEL_CALL =
  /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:?]+):([A-Za-z]+)(?:\?(.*))?$/
const GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"

export const start = async (options: StartOptions = {}): Promise<FakeVertex> => {
  const project = options.project ?? "switchyard-test"
  const region = options.region ?? "us-central1"
  const lifetime = options.tokenLifetimeSeconds ?? 3599
  const issued = new Set<string>()
  const tokenFailures: Array<{ readonly status: number; readonly body: unknown }> = []
  let tokenCount = 0
  let baseUrl = ""
  let account: ReturnType<typeof makeServiceAccount> | undefined

  const token = ({ request, response }: Turn) => {
    tokenCount += 1
    const failure = tokenFailures.shift()
    if (failure !== undefined) return sendJson(response, failure.status, failure.body)
    const form = new URLSearchParams(request.text)
    if (!(request.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) {
      return sendJson(response, 400, { error: "invalid_request", error_description: "form-encoded body expected" })
    }
    if (form.get("grant_type") !== GRANT_TYPE) {
      return sendJson(response, 400, { error: "unsupported_grant_type", error_description: "Invalid grant_type" })
    }
    const problem = account === undefined ? "no account" : checkAssertion(form.get("assertion") ?? "", account)
    if (problem !== undefined) return sendJson(response, 400, { error: "invalid_grant", error_description: problem })
    const accessToken = `ya29.fake-${tokenCount}`
    issued.add(accessToken)
    return sendJson(response, 200, { access_token: accessToken, expires_in: lifetime, token_type: "Bearer" })
  }

  const modelCall = async (turn: Turn, route: RegExpExecArray) => {
    const { request, response } = turn
    const [, callProject, location, publisher, model = "", method, query] = route
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1]
    if (bearer === undefined || !issued.has(bearer)) {
      return sendGoogleError(
        response,
        401,
        "Request had invalid authentication credentials. Expected OAuth 2 access token."
      )
    }
    if (callProject !== project || location !== region) {
      return sendGoogleError(response, 404, `Publisher Model \`${request.path.split(":")[0]}\` was not found.`)
    }
    const responseId = `fake-vertex-${turn.sequence}`
    if (publisher === "anthropic" && model === "count-tokens" && method === "rawPredict") {
      const counted = countTokens(request.body)
      if ("problem" in counted) return sendJson(response, 400, anthropicError("invalid_request_error", counted.problem))
      const behaviour = turn.behaviour()
      if (behaviour._tag !== "Reply") return answerGemini(behaviour, { ...exchangeOf(turn, model, false), responseId })
      return sendJson(response, 200, { input_tokens: counted.inputTokens })
    }
    if (publisher === "anthropic") {
      if (method !== "rawPredict" && method !== "streamRawPredict") {
        return sendGoogleError(response, 404, "Unknown method")
      }
      const stream = method === "streamRawPredict"
      const problem = checkRawPredict(request.body, stream)
      if (problem !== undefined) return sendJson(response, 400, anthropicError("invalid_request_error", problem))
      const behaviour = turn.behaviour()
      if (behaviour._tag !== "Reply") return answerGemini(behaviour, { ...exchangeOf(turn, model, stream), responseId })
      return stream
        ? writeMessageEvents(response, request.body, model, `msg_${responseId}`)
        : sendJson(response, 200, messageReply(request.body, model, `msg_${responseId}`))
    }
    if (method !== "generateContent" && method !== "streamGenerateContent") {
      return sendGoogleError(response, 404, "Unknown method")
    }
    const stream = method === "streamGenerateContent"
    if (stream && new URLSearchParams(query ?? "").get("alt") !== "sse") {
      return sendGoogleError(response, 400, "this fake streams only with alt=sse")
    }
    const problem = checkGenerateContent(request.body)
    if (problem !== undefined) return sendGoogleError(response, 400, problem)
    return answerGemini(turn.behaviour(), { ...exchangeOf(turn, model, stream), responseId })
  }

  const server = await startGoogleServer(async (turn) => {
    if (turn.request.method === "POST" && turn.request.path === "/token") return token(turn)
    const route = turn.request.method === "POST" ? MODEL_CALL.exec(turn.request.path) : null
    if (route === null) return sendGoogleError(turn.response, 404, `Unknown path: ${turn.request.path}`)
    return modelCall(turn, route)
  }, reply())
  baseUrl = `http://127.0.0.1:${server.port}`
  account = makeServiceAccount(project, `${baseUrl}/token`)
  const serviceAccount = account.json

  return {
    baseUrl,
    project,
    region,
    serviceAccount,
    requests: server.requests,
    tokenRequests: () => tokenCount,
    enqueue: server.enqueue,
    setDefault: server.setDefault,
    failNextToken: (status, body) => void tokenFailures.push({ status, body }),
    reset: () => {
      server.reset()
      tokenFailures.length = 0
    },
    close: server.close
  }
}

const exchangeOf = (turn: Turn, model: string, stream: boolean) => ({
  response: turn.response,
  body: turn.request.body,
  model: decodeURIComponent(model),
  stream,
  signal: turn.signal
})
