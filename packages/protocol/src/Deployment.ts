/**
 * An item of a gateway config's `deployments`: a named deployment of a
 * provider that serves models through deployments.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { closedStruct } from "./internal/Structs.ts"

/**
 * @example
 * import { Schema } from "effect"
 * import { Deployment } from "@switchyard/protocol"
 * const deployment = Schema.decodeUnknownSync(Deployment.Deployment)({
 *   deployment_id: "gpt4o-eu", alias: "gpt-4o", api_version: "2024-10-21", is_default: true
 * })
 *
 * @since 0.1.0
 */
export const Deployment = closedStruct({
  deployment_id: Schema.String,
  alias: Schema.String,
  api_version: Schema.String,
  is_default: Schema.optionalKey(Schema.Boolean)
})
/** @since 0.1.0 */
export type Deployment = typeof Deployment.Type
