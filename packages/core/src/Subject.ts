/**
 * What a call acts on, as its tool describes it to the authorization stage
 * (`Policy.Subject`). A module of its own because both `Tool` (which
 * computes it) and `Policy` (which reads it) need it.
 *
 * @since 0.4.0
 */

/**
 * What a call acts on, in the terms permission rules are written in:
 * `Bash(npm test:*)` matches a command, `Edit(src/**)` a path,
 * `WebFetch(domain:example.com)` a URL.
 *
 * @since 0.1.0
 * @category models
 */
export type Subject =
  | { readonly _tag: "None" }
  | {
    readonly _tag: "Command"
    readonly command: string
    /**
     * Where the command will run, when the tool knows: `confined` inside an
     * OS sandbox that bounds what it can touch; `unconfined` when the call
     * asks to run outside the sandbox that is in force (full access).
     * Absent when the tool runs no sandbox or cannot tell. Policies may
     * allow confined commands more readily, and should always ask before a
     * call leaves the sandbox.
     */
    readonly sandbox?: "confined" | "unconfined" | undefined
    /**
     * The directory the command starts in, when it is not the workspace
     * root: absolute, or relative to the root. Relative paths in the
     * command resolve from it, so rules about paths hold for them.
     */
    readonly cwd?: string | undefined
  }
  | { readonly _tag: "Path"; readonly path: string; readonly access: "read" | "write" }
  | { readonly _tag: "Url"; readonly url: string }

/**
 * The subject of a call that acts on nothing a rule names.
 *
 * @since 0.4.0
 * @category constructors
 */
export const none: Subject = { _tag: "None" }
