/** Each target's circuit (`GET /v1/circuits`, admin keys), polled every 2 seconds. */
import { get, type List } from "../api.ts"
import { time } from "../format.ts"
import { Loaded, Table } from "../Loaded.tsx"
import type { Circuit } from "../types.ts"
import { useResource } from "../useResource.ts"

const POLL_MS = 2_000

const STATE = { closed: "Closed", open: "Open", half_open: "Half open", unknown: "Unknown" } as const
const TONE = { closed: "good", open: "bad", half_open: "warn", unknown: "warn" } as const

const until = (circuit: Circuit) => {
  if (circuit.state === "open") return `probe in ${Math.ceil((circuit.retry_after_ms ?? 0) / 1000)} s`
  if (circuit.state === "half_open") return circuit.probing ? "probe running" : "probe due"
  return ""
}

export const CircuitsPage = () => {
  const circuits = useResource(() => get<List<Circuit>>("/v1/circuits"), [], { everyMs: POLL_MS })
  return (
    <section>
      <div class="title-row">
        <h1>Circuits</h1>
        {circuits.status === "loaded"
          ? <span class="muted live">live · updated {new Date(circuits.at).toLocaleTimeString()}</span>
          : null}
      </div>
      <Loaded resource={circuits}>
        {(list) => (
          <Table
            items={list.data}
            empty="No circuit used in the last hour (targets with cb_config get one)."
            rowClass={(circuit) => `circuit-${circuit.state}`}
            columns={[
              ["State", (circuit) => <span class={`badge ${TONE[circuit.state]}`}>{STATE[circuit.state]}</span>],
              ["Provider", (circuit) => circuit.provider],
              ["Host", (circuit) => <code>{circuit.host}</code>],
              ["Model", (circuit) => circuit.model],
              [
                "Credential",
                (circuit) => <code title="a hash of the credential, never the credential">{circuit.credential_id}</code>
              ],
              ["Failures in a row", (circuit) => circuit.failures],
              ["Opened", (circuit) => time(circuit.opened_at)],
              ["Next probe", until],
              ["Last attempt", (circuit) => time(circuit.last_attempt_at)]
            ]}
          />
        )}
      </Loaded>
    </section>
  )
}
