export * as Routes from "./Routes.ts"
export * as Server from "./Server.ts"
export * as ServerConfig from "./ServerConfig.ts"
