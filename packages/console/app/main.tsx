/** The console's entry: renders the app into the page the gateway serves at /console. */
import { render } from "preact"
import { App } from "./App.tsx"
import "./console.css"

const root = document.getElementById("console")
if (root !== null) render(<App />, root)
