import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as McpConfig from "../src/McpConfig.js"

describe("McpConfig", () => {
  it.effect("reads the mcpServers shape other clients use, ignoring keys it does not know", () =>
    Effect.gen(function*() {
      const config = yield* McpConfig.fromJson(JSON.stringify({
        mcpServers: {
          files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."], trusted: true },
          search: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer x" } },
          local: { command: "node", env: { TOKEN: "t" }, cwd: "/tmp", timeout: 5000, autoApprove: ["x"] }
        },
        theme: "dark"
      }))
      const { files, local, search } = config.mcpServers
      assert.isTrue(McpConfig.isStdio(files!))
      assert.isTrue(files!.trusted)
      assert.isFalse(McpConfig.isStdio(search!))
      assert.strictEqual(local!.timeout, 5000)
      assert.isUndefined(local!.trusted)
    }))

  it.effect("rejects server names that cannot be part of a tool name, and a URL that is not one", () =>
    Effect.gen(function*() {
      const badName = yield* Effect.either(McpConfig.decode({ mcpServers: { "my server": { command: "x" } } }))
      assert.isTrue(Either.isLeft(badName))
      if (Either.isLeft(badName)) assert.include(badName.left.message, "they become part of tool names")
      const badUrl = yield* Effect.either(McpConfig.decode({ mcpServers: { web: { url: "not a url" } } }))
      assert.isTrue(Either.isLeft(badUrl))
      const notJson = yield* Effect.either(McpConfig.fromJson("{ mcpServers"))
      assert.isTrue(Either.isLeft(notJson))
    }))
})
