import { Grant } from "@switchyard/auth"
import { Principal } from "@switchyard/core"

const caller = Principal.make({ keyId: "key_1", workspaceId: "ws-a", scopes: ["keys", "configs"] })
const granted = Grant.toCreate(caller, { scopes: ["keys"] }) // Success: { scopes: ["keys"], workspaceId: "ws-a" }
const refused = Grant.toCreate(caller, { scopes: ["admin"] }) // Failure: Forbidden, 'scopes: this key cannot grant "admin" …'
// README end

import type { GatewayError } from "@switchyard/core"
import type { Result } from "effect"

type Outcome = Result.Result<Grant.Grant, GatewayError.Forbidden>

/** Both outcomes, typed for the test. */
export const outcomes: { readonly granted: Outcome; readonly refused: Outcome } = { granted, refused }
