/**
 * Where our MCP client keeps what OAuth gave it between runs: tokens, the
 * client registration, and the discovery results.
 *
 * {@link fileStore}, the default, keeps one JSON file per server in the
 * user's state directory (`$XDG_STATE_HOME/tool-runtime/mcp-oauth`, else
 * `~/.local/state/…`), never in a workspace the agent works in. As ssh
 * does with its keys, it refuses what another user could have read or
 * planted: a folder or file that is not ours, that group or others may
 * read, or a symbolic link. Files are written whole (a temporary file,
 * then a rename), created 0600.
 *
 * @since 0.4.0
 */
import type { OAuthClientInformationMixed, OAuthDiscoveryState, OAuthTokens } from "@modelcontextprotocol/client"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

/**
 * What is kept for one server. Secrets stay `Redacted` in memory; the file
 * store writes their values.
 *
 * @since 0.4.0
 * @category models
 */
export interface Saved {
  readonly server?: string | undefined
  readonly url?: string | undefined
  readonly tokens?: Redacted.Redacted<OAuthTokens> | undefined
  readonly client?: Redacted.Redacted<OAuthClientInformationMixed> | undefined
  /** The authorization server `client` was registered with: a client is not taken to another (SEP-2352). */
  readonly clientIssuer?: string | undefined
  readonly discovery?: OAuthDiscoveryState | undefined
}

/**
 * The store could not be read or written, or refused a file another user
 * could read or plant.
 *
 * @since 0.4.0
 * @category errors
 */
export class McpOAuthStoreError extends Schema.TaggedError<McpOAuthStoreError>()("McpOAuthStoreError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `The OAuth token store at ${this.path} cannot be used: ${this.reason}`
  }
}

/**
 * @since 0.4.0
 * @category models
 */
export interface Store {
  readonly load: (key: string) => Effect.Effect<Option.Option<Saved>, McpOAuthStoreError>
  readonly save: (key: string, saved: Saved) => Effect.Effect<void, McpOAuthStoreError>
}

/**
 * The key of one server: its name and URL, hashed, so a file name says
 * nothing and a server moved to another URL starts afresh.
 *
 * @since 0.4.0
 * @category keys
 */
export const keyOf = (server: string, url: string): string =>
  NodeCrypto.createHash("sha256").update(`${server}\n${url}`).digest("hex").slice(0, 32)

/**
 * Kept for the life of the process only.
 *
 * @since 0.4.0
 * @category stores
 */
export const memoryStore = (): Store => {
  const kept = new Map<string, Saved>()
  return {
    load: (key) => Effect.sync(() => Option.fromNullable(kept.get(key))),
    save: (key, saved) => Effect.sync(() => void kept.set(key, saved))
  }
}

/**
 * The default folder: the user's state directory, outside any workspace.
 *
 * @since 0.4.0
 * @category stores
 */
export const defaultDirectory = (): string =>
  NodePath.join(
    process.env.XDG_STATE_HOME !== undefined && NodePath.isAbsolute(process.env.XDG_STATE_HOME)
      ? process.env.XDG_STATE_HOME
      : NodePath.join(NodeOs.homedir(), ".local", "state"),
    "tool-runtime",
    "mcp-oauth"
  )

interface OnDisk {
  readonly server?: string
  readonly url?: string
  readonly tokens?: OAuthTokens
  readonly client?: OAuthClientInformationMixed
  readonly clientIssuer?: string
  readonly discovery?: OAuthDiscoveryState
}

const own = (stat: NodeFs.Stats): string | undefined => {
  const uid = process.getuid?.()
  if (uid !== undefined && stat.uid !== uid) return `it belongs to user ${stat.uid}, not to this one (${uid})`
  if ((stat.mode & 0o077) !== 0) {
    return `its mode is ${(stat.mode & 0o777).toString(8)}: group and others must have no access`
  }
  return undefined
}

/**
 * The folder, created 0700 when missing (only to save: reading a store that
 * does not exist creates nothing); refused when another user could use it.
 */
const folder = (directory: string, create: boolean): string | undefined => {
  if (create) NodeFs.mkdirSync(directory, { recursive: true, mode: 0o700 })
  else if (!NodeFs.existsSync(directory)) return undefined
  const stat = NodeFs.lstatSync(directory)
  if (!stat.isDirectory()) throw new Error("it is not a folder (a symbolic link is refused)")
  const wrong = own(stat)
  if (wrong !== undefined) throw new Error(wrong)
  return directory
}

const read = (path: string): OnDisk | undefined => {
  let fd: number
  try {
    fd = NodeFs.openSync(path, NodeFs.constants.O_RDONLY | NodeFs.constants.O_NOFOLLOW)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw new Error("it is a symbolic link")
    throw error
  }
  try {
    const stat = NodeFs.fstatSync(fd)
    if (!stat.isFile()) throw new Error("it is not a regular file")
    const wrong = own(stat)
    if (wrong !== undefined) throw new Error(wrong)
    const parsed = JSON.parse(NodeFs.readFileSync(fd, "utf8")) as unknown
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new Error("it is not a JSON object")
    }
    return parsed as OnDisk
  } finally {
    NodeFs.closeSync(fd)
  }
}

const write = (directory: string, path: string, content: string) => {
  const temporary = NodePath.join(directory, `.${NodePath.basename(path)}.${NodeCrypto.randomBytes(6).toString("hex")}`)
  const fd = NodeFs.openSync(
    temporary,
    NodeFs.constants.O_WRONLY | NodeFs.constants.O_CREAT | NodeFs.constants.O_EXCL | NodeFs.constants.O_NOFOLLOW,
    0o600
  )
  try {
    NodeFs.writeFileSync(fd, content)
    NodeFs.fsyncSync(fd)
  } finally {
    NodeFs.closeSync(fd)
  }
  try {
    NodeFs.renameSync(temporary, path)
  } catch (error) {
    NodeFs.rmSync(temporary, { force: true })
    throw error
  }
}

const reason = (error: unknown) => error instanceof Error ? error.message : String(error)

/**
 * One file per server in `directory` (default {@link defaultDirectory}).
 *
 * @since 0.4.0
 * @category stores
 */
export const fileStore = (directory: string = defaultDirectory()): Store => {
  const pathOf = (key: string) => NodePath.join(directory, `${key}.json`)
  return {
    load: (key) =>
      Effect.try({
        try: () => {
          if (folder(directory, false) === undefined) return Option.none()
          const found = read(pathOf(key))
          if (found === undefined) return Option.none()
          return Option.some<Saved>({
            server: found.server,
            url: found.url,
            tokens: found.tokens === undefined ? undefined : Redacted.make(found.tokens),
            client: found.client === undefined ? undefined : Redacted.make(found.client),
            clientIssuer: typeof found.clientIssuer === "string" ? found.clientIssuer : undefined,
            discovery: found.discovery
          })
        },
        catch: (error) => new McpOAuthStoreError({ path: pathOf(key), reason: reason(error) })
      }),
    save: (key, saved) =>
      Effect.try({
        try: () => {
          const onDisk: OnDisk = {
            ...(saved.server === undefined ? {} : { server: saved.server }),
            ...(saved.url === undefined ? {} : { url: saved.url }),
            ...(saved.tokens === undefined ? {} : { tokens: Redacted.value(saved.tokens) }),
            ...(saved.client === undefined ? {} : { client: Redacted.value(saved.client) }),
            ...(saved.clientIssuer === undefined ? {} : { clientIssuer: saved.clientIssuer }),
            ...(saved.discovery === undefined ? {} : { discovery: saved.discovery })
          }
          write(folder(directory, true)!, pathOf(key), `${JSON.stringify(onDisk, null, 2)}\n`)
        },
        catch: (error) => new McpOAuthStoreError({ path: pathOf(key), reason: reason(error) })
      })
  }
}
