import { chatPath, messagesPath, messagesRequest } from "./ChatRequestBody.ts"
import type { Target } from "./LoadRun.ts"
import { benchAdminKey, type RunningServer } from "./ServerProcesses.ts"

/** How each target is addressed; `upstreamBaseUrl` is the fake's `http://127.0.0.1:PORT/v1`. */
export const bareProxyTarget = (name: string, server: RunningServer): Target => ({
  name,
  url: `${server.origin}${chatPath}`,
  headers: { "content-type": "application/json", "authorization": "Bearer sk-bench" },
  pid: server.pid
})

export const gatewayTarget = (server: RunningServer, upstreamBaseUrl: string, name = "switchyard gateway"): Target => ({
  name,
  url: `${server.origin}${chatPath}`,
  headers: {
    "content-type": "application/json",
    "x-gateway-api-key": benchAdminKey,
    "x-gateway-provider": "openai",
    "x-gateway-custom-host": upstreamBaseUrl,
    "authorization": "Bearer sk-bench"
  },
  pid: server.pid
})

/**
 * The gateway's Anthropic Messages route to the same OpenAI-format fake: a request translated in
 * and its answer translated back, against the chat path's throughput.
 */
export const gatewayMessagesTarget = (server: RunningServer, upstreamBaseUrl: string): Target => ({
  ...gatewayTarget(server, upstreamBaseUrl, "switchyard messages (translated)"),
  url: `${server.origin}${messagesPath}`,
  request: messagesRequest
})

export const portkeyTarget = (server: RunningServer, upstreamBaseUrl: string): Target => ({
  name: "portkey gateway 1.15.2",
  url: `${server.origin}${chatPath}`,
  headers: {
    "content-type": "application/json",
    "x-portkey-provider": "openai",
    "x-portkey-custom-host": upstreamBaseUrl,
    "authorization": "Bearer sk-bench"
  },
  pid: server.pid
})

/**
 * The gateway through `fallback` whose first target refuses connections (nothing listens on port
 * 9): what a failing first target adds over a direct call.
 */
export const gatewayFallbackTarget = (server: RunningServer, upstreamBaseUrl: string): Target => ({
  name: "switchyard fallback (1st down)",
  url: `${server.origin}${chatPath}`,
  headers: {
    "content-type": "application/json",
    "x-gateway-api-key": benchAdminKey,
    "x-gateway-config": JSON.stringify({
      strategy: { mode: "fallback" },
      targets: [
        { provider: "openai", api_key: "sk-bench", custom_host: "http://127.0.0.1:9/v1" },
        { provider: "openai", api_key: "sk-bench", custom_host: upstreamBaseUrl }
      ]
    })
  },
  pid: server.pid
})

/** The gateway with a simple cache: after the warm-up every request is a cache hit. */
export const gatewayCacheTarget = (server: RunningServer, upstreamBaseUrl: string): Target => ({
  name: "switchyard cache hit",
  url: `${server.origin}${chatPath}`,
  headers: {
    "content-type": "application/json",
    "x-gateway-api-key": benchAdminKey,
    "x-gateway-config": JSON.stringify({
      provider: "openai",
      api_key: "sk-bench",
      custom_host: upstreamBaseUrl,
      cache: { mode: "simple" }
    })
  },
  pid: server.pid
})

/**
 * Makes every chat request of `server`'s admin workspace fall under one usage-limits policy
 * (tokens, a limit no run reaches) and one rate-limit policy (requests per minute, idem): what
 * one active policy of each kind costs a request.
 */
export const addPolicies = async (server: RunningServer): Promise<void> => {
  const everyRequest = { conditions: [{ key: "workspace_id", value: "*" }], group_by: [{ key: "api_key" }] }
  const policies = [
    ["/v1/policies/usage-limits", { ...everyRequest, type: "tokens", credit_limit: 1e15 }],
    ["/v1/policies/rate-limits", { ...everyRequest, type: "requests", unit: "rpm", value: 1_000_000_000 }]
  ] as const
  for (const [path, body] of policies) {
    const response = await fetch(`${server.origin}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gateway-api-key": benchAdminKey },
      body: JSON.stringify(body)
    })
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`)
  }
}
