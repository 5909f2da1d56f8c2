/** Stored provider credentials: their names and settings, the secrets masked by the gateway. */
import { get, type List } from "../api.ts"
import { json, time } from "../format.ts"
import { Loaded, Table } from "../Loaded.tsx"
import type { Integration } from "../types.ts"
import { useResource } from "../useResource.ts"

export const IntegrationsPage = () => {
  const integrations = useResource(() => get<List<Integration>>("/v1/integrations"), [])
  return (
    <section>
      <h1>Integrations</h1>
      <Loaded resource={integrations}>
        {(list) => (
          <Table
            items={list.data}
            empty="No integration."
            columns={[
              ["Slug", (integration) => <code>@{integration.slug}</code>],
              ["Provider", (integration) => integration.provider],
              ["Name", (integration) => integration.name ?? "—"],
              ["Settings (secrets masked)", (integration) => <pre>{json(integration.settings)}</pre>],
              ["Updated", (integration) => time(integration.updated_at)]
            ]}
          />
        )}
      </Loaded>
    </section>
  )
}
