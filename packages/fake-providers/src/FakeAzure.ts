/**
 * A fake Azure on 127.0.0.1: Azure OpenAI (`/openai/deployments/{deployment}/…?api-version=…`)
 * and Azure AI Foundry model inference (serverless `/chat/completions`, managed `/score`).
 * Every request is checked as Azure documents it (credential, deployment, `api-version`, body)
 * before the queued behaviour runs; a request that fails a check gets Azure's error and leaves
 * the queue as it was.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { type Behaviour, json, reply } from "./Behaviour.ts"
import type { RecordedRequest } from "./FakeOpenAI.ts"
import { runAzureBehaviour } from "./internal/azure/AzureBehaviour.ts"
import { type AzureSettings, checkRequest } from "./internal/azure/AzureRequestCheck.ts"
import { addressOf, headerRecord, parseBody, readText } from "./internal/IncomingRequest.ts"

export interface StartOptions {
  /** 0 (the default) picks any free port. */
  readonly port?: number | undefined
  /** The key accepted in `api-key` (Azure OpenAI) or as a Bearer token (inference). Default "azure-key". */
  readonly apiKey?: string | undefined
  /** The Entra token accepted as `Authorization: Bearer …`. Default "entra-token". */
  readonly bearerToken?: string | undefined
  /** Deployment name → model it runs. Default `{ "gpt-4o-prod": "gpt-4o-2024-11-20" }`. */
  readonly deployments?: Readonly<Record<string, string>> | undefined
  /** Names accepted in `azureml-model-deployment`. Default `["blue"]`. */
  readonly managedDeployments?: ReadonlyArray<string> | undefined
  /** The model inference endpoints report. Default "Meta-Llama-3.1-70B-Instruct". */
  readonly endpointModel?: string | undefined
}

export interface FakeAzure {
  /** `http://127.0.0.1:PORT`: what `custom_host` points at. */
  readonly baseUrl: string
  readonly port: number
  readonly requests: ReadonlyArray<RecordedRequest>
  /** The behaviour for the next accepted request (first in, first out). */
  readonly enqueue: (behaviour: Behaviour) => void
  readonly setDefault: (behaviour: Behaviour) => void
  readonly reset: () => void
  readonly close: () => Promise<void>
}

/**
 * Starts a fake Azure.
 *
 * @example
 * ```ts
 * import { FakeAzure } from "@switchyard/fake-providers"
 *
 * const fake = await FakeAzure.start({ deployments: { prod: "gpt-4o-2024-11-20" } })
 * const response = await fetch(`${fake.baseUrl}/openai/deployments/prod/chat/completions?api-version=2024-10-21`, {
 *   method: "POST",
 *   headers: { "api-key": "azure-key", "content-type": "application/json" },
 *   body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] })
 * })
 * response.status // 200
 * await fake.close()
 * ```
 */
export const start = async (options: StartOptions = {}): Promise<FakeAzure> => {
  const settings: AzureSettings = {
    apiKey: options.apiKey ?? "azure-key",
    bearerToken: options.bearerToken ?? "entra-token",
    deployments: options.deployments ?? { "gpt-4o-prod": "gpt-4o-2024-11-20" },
    managedDeployments: options.managedDeployments ?? ["blue"],
    endpointModel: options.endpointModel ?? "Meta-Llama-3.1-70B-Instruct"
  }
  const requests: Array<RecordedRequest> = []
  const queue: Array<Behaviour> = []
  let defaultBehaviour: Behaviour = reply()
  let replies = 0
  const closing = new AbortController()

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const exchangeClosed = new AbortController()
    response.once("close", () => exchangeClosed.abort())
    const text = await readText(request)
    const recorded = {
      method: request.method ?? "GET",
      path: request.url ?? "/",
      headers: headerRecord(request),
      body: parseBody(text),
      chunksWrittenAt: new Array<number>()
    }
    requests.push(recorded)
    const checked = checkRequest(settings, {
      method: recorded.method,
      target: recorded.path,
      headers: recorded.headers,
      body: recorded.body
    })
    if (checked._tag === "Accepted") replies += 1
    const exchange = {
      method: recorded.method,
      path: recorded.path,
      body: recorded.body,
      response,
      identity: { id: `chatcmpl-azure-${replies}`, created: Math.floor(Date.now() / 1000) },
      chunksWrittenAt: recorded.chunksWrittenAt,
      signal: AbortSignal.any([closing.signal, exchangeClosed.signal])
    }
    return checked._tag === "Refused"
      ? runAzureBehaviour(json(checked.status, checked.body), undefined, exchange)
      : runAzureBehaviour(queue.shift() ?? defaultBehaviour, checked.route, exchange)
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy())
  })
  server.keepAliveTimeout = 65_000
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve())
  })
  const { port } = addressOf(server.address())

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    requests,
    enqueue: (behaviour) => {
      queue.push(behaviour)
    },
    setDefault: (behaviour) => {
      defaultBehaviour = behaviour
    },
    reset: () => {
      requests.length = 0
      queue.length = 0
      defaultBehaviour = reply()
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort()
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}
