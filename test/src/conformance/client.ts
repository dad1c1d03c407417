/**
 * Our MCP client as the conformance suite drives it
 * (`conformance client --command …`): the suite starts a server for a
 * scenario and runs this program with its URL as the last argument. The
 * program does what an agent would: connects through `McpClient`, imports
 * the server's tools with `McpTools`, and calls each of them through the
 * runtime with the arguments the scenario's tools take. Questions from the
 * server are accepted with an empty form, so the schema's defaults are what
 * the answer holds (SEP-1034).
 *
 * Auth scenarios: the suite's authorization server approves without a
 * person, so `McpOAuth.followRedirects` plays the browser; tokens are kept
 * in memory. The client credentials the suite hands out for a scenario
 * (`MCP_CONFORMANCE_CONTEXT`) are passed as `Redacted` credentials, with the
 * matching configuration: pre-registered, or the client-credentials grant.
 *
 * Prints one line per call (tool, isError, code) for the test to read.
 */
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as McpClient from "@tool-runtime/mcp/McpClient"
import * as McpConfig from "@tool-runtime/mcp/McpConfig"
import * as McpOAuth from "@tool-runtime/mcp/McpOAuth"
import * as McpOAuthStore from "@tool-runtime/mcp/McpOAuthStore"
import * as McpTools from "@tool-runtime/mcp/McpTools"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

const url = process.argv.at(-1)!

/** Arguments for the tools the suite's scenario servers offer. */
const argumentsFor: Record<string, Record<string, unknown>> = {
  add_numbers: { a: 5, b: 3 }
}

const program = Effect.gen(function*() {
  const runtime = yield* ToolRuntime.ToolRuntime
  const imported = runtime.registry.entries.map((entry) => entry.tool.name).filter((name) =>
    name.startsWith("mcp__suite__")
  )
  const schemaOf = (tool: string) => runtime.registry.get(`mcp__suite__${tool}`)?.tool.inputSchema
  for (const name of imported) {
    const tool = name.slice("mcp__suite__".length)
    const given = (context.toolCalls ?? []).filter((call) => call.name === tool)
    // The suite's own arguments when it gives them; the tool's schema read back (the JSON Schema
    // preservation scenario); else the least its schema requires.
    const inputs = given.length > 0
      ? given.map((call) => call.arguments)
      : [argumentsFor[tool] ?? (tool === "json_schema_echo" ? echoed(schemaOf) : leastFor(schemaOf(tool)))]
    for (const input of inputs) {
      const result = yield* runtime.runCall({ id: `call-${tool}`, name, input })
      process.stdout.write(`${JSON.stringify({ tool, isError: result.isError, code: result.error?.code ?? null })}\n`)
    }
  }
})

/** A value of each required property's type: what a model would fill in from the schema alone. */
const leastFor = (schema: unknown): Record<string, unknown> => {
  const { properties = {}, required = [] } = (schema ?? {}) as {
    readonly properties?: Record<string, { readonly type?: unknown }>
    readonly required?: ReadonlyArray<string>
  }
  const sample: Record<string, unknown> = { string: "x", integer: 1, number: 1, boolean: true, object: {}, array: [] }
  return Object.fromEntries(required.map((key) => [key, sample[String(properties[key]?.type)] ?? "x"]))
}

/** The schema of the suite's other tool, as our registry holds it, for the echo tool to send back. */
const echoed = (schemaOf: (tool: string) => unknown): Record<string, unknown> => {
  return { schema: schemaOf("json_schema_2020_12_tool") ?? {} }
}

interface Context {
  readonly toolCalls?: ReadonlyArray<{ readonly name: string; readonly arguments: Record<string, unknown> }>
  readonly client_id?: string
  readonly client_secret?: string
  readonly private_key_pem?: string
  readonly signing_algorithm?: string
  readonly idp_client_id?: string
  readonly idp_id_token?: string
  readonly idp_token_endpoint?: string
}
const context: Context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}")
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? ""

const oauth: McpConfig.OAuth = {
  ...(scenario.startsWith("auth/client-credentials") ? { grant: "client_credentials" as const } : {}),
  ...(context.idp_token_endpoint === undefined ? {} : {
    grant: "identity_assertion" as const,
    idpTokenEndpoint: context.idp_token_endpoint,
    ...(context.idp_client_id === undefined ? {} : { idpClientId: context.idp_client_id })
  }),
  ...(context.client_id === undefined ? {} : { clientId: context.client_id }),
  ...(context.signing_algorithm === undefined ? {} : { signingAlgorithm: context.signing_algorithm }),
  // Taken where the authorization server accepts a metadata document as client id (CIMD).
  clientMetadataUrl: "https://conformance-test.local/client-metadata.json"
}
const credentials: McpOAuth.Credentials = {
  ...(context.client_secret === undefined ? {} : { clientSecret: Redacted.make(context.client_secret) }),
  ...(context.private_key_pem === undefined ? {} : { privateKey: Redacted.make(context.private_key_pem) }),
  ...(context.idp_id_token === undefined ? {} : { idToken: Redacted.make(context.idp_id_token) })
}

const config = McpConfig.make({ suite: { url, trusted: true, required: true, oauth } })
await Effect.runPromise(
  program.pipe(
    Effect.provide(
      McpTools.layerRuntime([]).pipe(
        Layer.provide(
          McpClient.layer(config, {
            elicit: () => Effect.succeed({ action: "accept", content: {} }),
            oauth: {
              authorize: McpOAuth.followRedirects,
              store: McpOAuthStore.memoryStore(),
              timeout: "20 seconds",
              credentials: { suite: credentials }
            }
          })
        )
      )
    )
  )
)
