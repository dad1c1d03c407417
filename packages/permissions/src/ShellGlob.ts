/**
 * ShellGlob: whether a shell glob (`*`, `?`, `[…]`, `[!…]`) matches a name.
 * Apart because two readers need it without importing each other: rule
 * matching (a deny rule's command named by a glob, `/bin/r[m]`) and the
 * destructive-command check (what program a globbed name could run).
 *
 * @since 0.4.0
 */

/**
 * Whether `glob` matches the whole of `name`; a glob that does not compile
 * matches everything (it could name anything).
 *
 * @since 0.4.0
 * @category matching
 */
export const matches = (glob: string, name: string): boolean => {
  let source = ""
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === "*") source += ".*"
    else if (c === "?") source += "."
    else if (c === "[") {
      // A `]` first in the class (after a `!` or `^`) is one of its characters: `[]r]m` runs rm.
      const negated = glob[i + 1] === "!" || glob[i + 1] === "^"
      const from = i + (negated ? 2 : 1)
      const close = glob.indexOf("]", from + 1)
      if (close < 0) source += "\\["
      else {
        // Escaped for a regex, which reads `[]` as an empty class and `[^]` as any character.
        source += `[${negated ? "^" : ""}${glob.slice(from, close).replace(/[\\\][]/g, "\\$&")}]`
        i = close
      }
    } else source += c.replace(/[.+^${}()|\\/]/g, "\\$&")
  }
  try {
    return new RegExp(`^${source}$`).test(name)
  } catch {
    return true
  }
}

/**
 * Whether a word holds glob characters bash expands in a command name.
 *
 * @since 0.4.0
 * @category matching
 */
export const isGlob = (word: string): boolean => /[*?[]/.test(word) && word !== "[" && word !== "[["
