/** Stored configs, as the gateway answers them: every credential in them masked. */
import { get, type List } from "../api.ts"
import { json, time } from "../format.ts"
import { Loaded, Table } from "../Loaded.tsx"
import type { StoredConfig } from "../types.ts"
import { useResource } from "../useResource.ts"

export const ConfigsPage = () => {
  const configs = useResource(() => get<List<StoredConfig>>("/v1/configs"), [])
  return (
    <section>
      <h1>Configs</h1>
      <Loaded resource={configs}>
        {(list) => (
          <Table
            items={list.data}
            empty="No stored config."
            columns={[
              ["Id", (config) => <code>{config.id}</code>],
              ["Name", (config) => config.name],
              ["Version", (config) => config.version],
              ["Config (credentials masked)", (config) => <pre>{json(config.config)}</pre>],
              ["Updated", (config) => time(config.updated_at)]
            ]}
          />
        )}
      </Loaded>
    </section>
  )
}
