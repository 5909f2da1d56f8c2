import { chatPath } from "./ChatRequestBody.ts"
import type { Target } from "./LoadRun.ts"
import { benchAdminKey, type RunningServer } from "./ServerProcesses.ts"

/** How each target is addressed; `upstreamBaseUrl` is the fake's `http://127.0.0.1:PORT/v1`. */
export const bareProxyTarget = (name: string, server: RunningServer): Target => ({
  name,
  url: `${server.origin}${chatPath}`,
  headers: { "content-type": "application/json", "authorization": "Bearer sk-bench" },
  pid: server.pid
})

export const gatewayTarget = (server: RunningServer, upstreamBaseUrl: string): Target => ({
  name: "switchyard gateway",
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
