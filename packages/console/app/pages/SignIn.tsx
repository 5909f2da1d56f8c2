/** Sign-in: the key is checked against the gateway before it is kept (in sessionStorage only). */
import { useState } from "preact/hooks"
import { ApiError, get } from "../api.ts"
import { signIn } from "../session.ts"

/**
 * Whether the gateway knows `key`. Any authenticated route would do: 401 means the key is wrong,
 * anything else (even 403, a key without `logs.read`) means it is a key the gateway accepts.
 */
const check = async (key: string): Promise<string | undefined> => {
  try {
    await get("/v1/logs?limit=1", key)
    return undefined
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      return `The gateway refused this key: ${error.message}`
    }
    if (error instanceof ApiError && error.status !== 403) {
      return `The gateway could not check the key: ${error.message}`
    }
    if (!(error instanceof ApiError)) return `The gateway could not be reached: ${String(error)}`
    return undefined
  }
}

export const SignIn = ({ onSignedIn }: { readonly onSignedIn: () => void }) => {
  const [key, setKey] = useState("")
  const [error, setError] = useState<string | undefined>(undefined)
  const [checking, setChecking] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    setChecking(true)
    const refused = await check(key.trim())
    setChecking(false)
    if (refused !== undefined) return setError(refused)
    signIn(key.trim())
    onSignedIn()
  }
  return (
    <form class="sign-in" onSubmit={submit}>
      <h1>Switchyard console</h1>
      <label for="api-key">API key</label>
      <input
        id="api-key"
        type="password"
        autocomplete="off"
        value={key}
        onInput={(event) => setKey(event.currentTarget.value)}
        required
      />
      <p class="hint">Kept in this tab only (sessionStorage), sent to this gateway alone, gone when the tab closes.</p>
      {error === undefined ? null : <p class="error" role="alert">{error}</p>}
      <button type="submit" disabled={checking || key.trim() === ""}>{checking ? "Checking…" : "Sign in"}</button>
    </form>
  )
}
