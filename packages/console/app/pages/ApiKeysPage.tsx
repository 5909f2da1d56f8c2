/** The workspace's API keys: names, scopes, the prefix that tells them apart; never a secret. */
import { get, type List } from "../api.ts"
import { time } from "../format.ts"
import { Loaded, Table } from "../Loaded.tsx"
import type { ApiKey } from "../types.ts"
import { useResource } from "../useResource.ts"

const stateOf = (key: ApiKey, now: number) =>
  key.revoked_at !== null ? "revoked" : key.expires_at !== null && key.expires_at <= now ? "expired" : "active"

export const ApiKeysPage = () => {
  const keys = useResource(() => get<List<ApiKey>>("/v1/api-keys"), [])
  const now = Math.floor(Date.now() / 1000)
  return (
    <section>
      <h1>API keys</h1>
      <Loaded resource={keys}>
        {(list) => (
          <Table
            items={list.data}
            empty="No API key."
            columns={[
              ["Name", (key) => key.name],
              ["Prefix", (key) => <code>{key.key_prefix}…</code>],
              ["Scopes", (key) => key.scopes.join(" ")],
              ["Workspace", (key) => key.workspace_id],
              ["State", (key) => {
                const state = stateOf(key, now)
                return <span class={`badge ${state === "active" ? "good" : "bad"}`}>{state}</span>
              }],
              ["Created", (key) => time(key.created_at)],
              ["Expires", (key) => (key.expires_at === null ? "never" : time(key.expires_at))]
            ]}
          />
        )}
      </Loaded>
    </section>
  )
}
