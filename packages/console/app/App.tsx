/** Sign-in, then the pages behind a navigation bar. */
import { useState } from "preact/hooks"
import { ApiKeysPage } from "./pages/ApiKeysPage.tsx"
import { CircuitsPage } from "./pages/CircuitsPage.tsx"
import { ConfigsPage } from "./pages/ConfigsPage.tsx"
import { IntegrationsPage } from "./pages/IntegrationsPage.tsx"
import { PoliciesPage } from "./pages/PoliciesPage.tsx"
import { RequestDetail } from "./pages/RequestDetail.tsx"
import { RequestsPage } from "./pages/RequestsPage.tsx"
import { SignIn } from "./pages/SignIn.tsx"
import { UsagePage } from "./pages/UsagePage.tsx"
import { href, useRoute } from "./route.ts"
import { apiKey, signOut } from "./session.ts"

const PAGES = [
  ["requests", "Requests"],
  ["usage", "Usage"],
  ["policies", "Policies"],
  ["circuits", "Circuits"],
  ["integrations", "Integrations"],
  ["configs", "Configs"],
  ["keys", "API keys"]
] as const

const Page = ({ page, id }: { readonly page: string; readonly id: string | undefined }) => {
  switch (page) {
    case "requests":
      return id === undefined ? <RequestsPage /> : <RequestDetail id={id} />
    case "usage":
      return <UsagePage />
    case "policies":
      return <PoliciesPage />
    case "circuits":
      return <CircuitsPage />
    case "integrations":
      return <IntegrationsPage />
    case "configs":
      return <ConfigsPage />
    case "keys":
      return <ApiKeysPage />
    default:
      return <p class="error">No page “{page}”.</p>
  }
}

export const App = () => {
  const [signedIn, setSignedIn] = useState(() => apiKey() !== null)
  const route = useRoute()
  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} />
  return (
    <div class="shell">
      <header>
        <span class="brand">Switchyard</span>
        <nav>
          {PAGES.map(([page, label]) => (
            <a key={page} href={href(page)} class={route.page === page ? "current" : undefined}>{label}</a>
          ))}
        </nav>
        <button
          type="button"
          class="quiet"
          onClick={() => {
            signOut()
            setSignedIn(false)
          }}
        >
          Sign out
        </button>
      </header>
      <main>
        <Page page={route.page} id={route.id} />
      </main>
    </div>
  )
}
