/**
 * ProtectedTargets: what of a call reaches a person whatever the rules say:
 * a write into a repository's machinery or a settings file that runs code
 * (`protectedPath`), and a command line that could destroy the machine
 * (`destructionOf`). Apart from the matching because no rule list enters
 * here: these lists are the engine's own.
 *
 * @since 0.4.0
 */
import * as CallTarget from "./CallTarget.js"
import * as CommandLine from "./CommandLine.js"
import * as CommandRisk from "./CommandRisk.js"
import * as LexicalReadings from "./LexicalReadings.js"
import * as ReadingSet from "./ReadingSet.js"
import * as Rule from "./Rule.js"

/**
 * Directories that hold a repository's machinery, or settings that run code
 * or grant permissions: a write anywhere inside one is protected.
 *
 * @since 0.4.0
 * @category protected paths
 */
export const protectedDirectories: ReadonlySet<string> = new Set([
  ".git",
  ".claude",
  ".vscode",
  ".idea",
  ".husky",
  ".cargo",
  ".devcontainer",
  ".yarn",
  ".mvn",
  ".tool-runtime"
])
/**
 * Files that run code or grant permissions, wherever they are.
 *
 * @since 0.4.0
 * @category protected paths
 */
export const protectedFiles: ReadonlySet<string> = new Set([
  ".gitconfig",
  ".gitmodules",
  ".gitattributes",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".zlogin",
  ".profile",
  ".envrc",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pnp.cjs",
  "bunfig.toml",
  ".bazelrc",
  ".pre-commit-config.yaml",
  "lefthook.yml",
  ".lefthook.yml",
  "gradle-wrapper.properties",
  "maven-wrapper.properties",
  ".devcontainer.json",
  ".ripgreprc",
  "pyrightconfig.json",
  ".mcp.json",
  ".claude.json"
])

/**
 * The protected directory or file a path lands in, if any.
 *
 * @since 0.3.0
 * @category protected paths
 */
export const protectedIn = (path: string, location: Rule.Location): string | undefined => {
  const root = Rule.normalize(location.workspaceRoot)
  const relative = Rule.isInside(path, root) ? path.slice(root.length) : path
  const segments = relative.split("/").filter((segment) => segment !== "")
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    // `.claude/worktrees` is where agents keep their checkouts, not settings.
    if (segment === ".claude" && segments[i + 1] === "worktrees") return undefined
    if (protectedDirectories.has(segment) && i < segments.length - 1) return segment
    if (segment === ".config" && segments[i + 1] === "git") return ".config/git"
    if (protectedDirectories.has(segment) || protectedFiles.has(segment)) return segment
  }
  return undefined
}

/**
 * The protected place a write lands in, if any.
 *
 * @since 0.3.0
 * @category protected paths
 */
export const protectedPath = (target: CallTarget.Target, location: Rule.Location): string | undefined => {
  if (target._tag === "Path") {
    if (target.access !== "write") return undefined
    for (const path of target.paths) {
      const hit = protectedIn(path, location)
      if (hit !== undefined) return hit
    }
    return undefined
  }
  if (target._tag === "Command") {
    // From every directory a `cd` could leave the redirection in, and where a link leads.
    for (const path of CallTarget.lineWrites(target.analysis, location)) {
      for (const lead of target.leadsTo(path)) {
        const hit = protectedIn(lead, location)
        if (hit !== undefined) return hit
      }
    }
  }
  return undefined
}

/**
 * Why a command line must reach a person whatever rules and modes allow: it
 * could destroy the machine.
 *
 * @since 0.3.0
 * @category risk
 */
export const destructionOf = (target: CallTarget.Target, location: Rule.Location): string | undefined => {
  if (target._tag !== "Command") return undefined
  // A line the engine stopped reading (too long, too deep, too many commands) may hold any
  // command past where it stopped; a computed name is read, and judged as any program below.
  const open = target.analysis.open
  if (open !== undefined && open !== ReadingSet.computedName) {
    return `${open}, so it could run a destructive command the engine did not read`
  }
  const root = Rule.normalize(location.workspaceRoot)
  // The grammar misreads some lines a glob names the command of (`r[m] -rf /usr` splits `-rf`):
  // their words are also read lexically, which only adds readings to judge.
  let readings = target.analysis.readings
  if (target.analysis.globNames.length > 0) {
    const lexical = new ReadingSet.Readings()
    LexicalReadings.lexicalReadings(target.command, lexical)
    readings = [...readings, ...lexical.all]
  }
  // From every directory a `cd` could leave the command in: `cd / && rm -rf usr`.
  for (const cwd of CallTarget.lineCwds(target.analysis, location)) {
    // Every field `destructive` reads, written out: on node 20 a spread that adds a key costs about a microsecond.
    const from: CommandRisk.Location = {
      workspaceRoot: location.workspaceRoot,
      homeDirectory: location.homeDirectory,
      cwd
    }
    for (const words of readings) {
      const why = CommandRisk.destructive(words, from)
      if (why !== undefined) return `${why} (${CommandLine.print(words)}${cwd === root ? "" : `, run in ${cwd}`})`
    }
  }
  return CommandRisk.destructiveLine(
    target.command,
    target.analysis.readings,
    target.analysis.writes.map((path) => Rule.normalize(path))
  )
}
