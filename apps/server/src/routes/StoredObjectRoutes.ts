/**
 * Handlers of the routes that manage what the gateway keeps: API keys, integrations, virtual
 * keys and configs. Every object belongs to the caller's workspace.
 */
import { ApiKeys, Grant } from "@switchyard/auth"
import type { GatewayError } from "@switchyard/core"
import { StoredObjectRequests } from "@switchyard/protocol"
import { Integrations, StoredConfigs, VirtualKeys } from "@switchyard/provider-access"
import { Effect } from "effect"
import type { BodyDeadlines } from "../http/BodyDeadlines.ts"
import { body, list, param, type RouteInput } from "./ManagementRoute.ts"

const createApiKeyBody = body(StoredObjectRequests.CreateApiKey)
const createIntegrationBody = body(StoredObjectRequests.CreateIntegration)
const createVirtualKeyBody = body(StoredObjectRequests.CreateVirtualKey)
const createConfigBody = body(StoredObjectRequests.CreateConfig)
const updateConfigBody = body(StoredObjectRequests.UpdateConfig)

export const createApiKey = (
  input: RouteInput
): Effect.Effect<ApiKeys.CreatedApiKey, GatewayError.GatewayError, ApiKeys.ApiKeys | BodyDeadlines> =>
  Effect.gen(function*() {
    const request = yield* createApiKeyBody(input.request)
    // a key grants only what it holds, in its own workspace (unless it is an admin key)
    const grant = yield* Effect.fromResult(Grant.toCreate(input.principal, request))
    const apiKeys = yield* ApiKeys.ApiKeys
    return yield* apiKeys.create({ ...request, scopes: grant.scopes, workspace_id: grant.workspaceId })
  })

export const listApiKeys = (input: RouteInput) =>
  ApiKeys.ApiKeys.use((apiKeys) => Effect.map(apiKeys.list(input.principal.workspaceId), list))

export const revokeApiKey = (
  input: RouteInput
): Effect.Effect<ApiKeys.ApiKey, GatewayError.GatewayError, ApiKeys.ApiKeys> =>
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys.ApiKeys
    const id = param(input, "id")
    const target = yield* apiKeys.get(input.principal.workspaceId, id)
    // a lesser key may not lock out a greater one (scopes never change, so checking first is safe)
    yield* Effect.fromResult(
      Grant.toRevoke(input.principal, { scopes: target.scopes, workspaceId: target.workspace_id })
    )
    return yield* apiKeys.revoke(input.principal.workspaceId, id)
  })

export const createIntegration = (input: RouteInput) =>
  Effect.gen(function*() {
    const request = yield* createIntegrationBody(input.request)
    return yield* (yield* Integrations.Integrations).create(input.principal.workspaceId, request)
  })

export const listIntegrations = (input: RouteInput) =>
  Integrations.Integrations.use((integrations) => Effect.map(integrations.list(input.principal.workspaceId), list))

export const getIntegration = (input: RouteInput) =>
  Integrations.Integrations.use((integrations) => integrations.get(input.principal.workspaceId, param(input, "id")))

export const deleteIntegration = (input: RouteInput) =>
  Integrations.Integrations.use((integrations) => integrations.remove(input.principal.workspaceId, param(input, "id")))

export const createVirtualKey = (input: RouteInput) =>
  Effect.gen(function*() {
    const request = yield* createVirtualKeyBody(input.request)
    return yield* (yield* VirtualKeys.VirtualKeys).create(input.principal.workspaceId, request)
  })

export const listVirtualKeys = (input: RouteInput) =>
  VirtualKeys.VirtualKeys.use((virtualKeys) => Effect.map(virtualKeys.list(input.principal.workspaceId), list))

export const deleteVirtualKey = (input: RouteInput) =>
  VirtualKeys.VirtualKeys.use((virtualKeys) => virtualKeys.remove(input.principal.workspaceId, param(input, "id")))

export const createConfig = (input: RouteInput) =>
  Effect.gen(function*() {
    const request = yield* createConfigBody(input.request)
    return yield* (yield* StoredConfigs.StoredConfigs).create(input.principal.workspaceId, request)
  })

export const listConfigs = (input: RouteInput) =>
  StoredConfigs.StoredConfigs.use((configs) => Effect.map(configs.list(input.principal.workspaceId), list))

export const getConfig = (input: RouteInput) =>
  StoredConfigs.StoredConfigs.use((configs) => configs.get(input.principal.workspaceId, param(input, "id")))

export const updateConfig = (input: RouteInput) =>
  Effect.gen(function*() {
    const request = yield* updateConfigBody(input.request)
    return yield* (yield* StoredConfigs.StoredConfigs).update(input.principal.workspaceId, param(input, "id"), request)
  })

export const deleteConfig = (input: RouteInput) =>
  StoredConfigs.StoredConfigs.use((configs) => configs.remove(input.principal.workspaceId, param(input, "id")))
