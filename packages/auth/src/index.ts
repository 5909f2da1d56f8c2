export * as AdminKeyBootstrap from "./AdminKeyBootstrap.ts"
export * as Authenticator from "./Authenticator.ts"
