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
      const close = glob.indexOf("]", i + 2)
      if (close < 0) source += "\\["
      else {
        source += `[${glob.slice(i + 1, close).replace(/^!/, "^").replace(/\\/g, "\\\\")}]`
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
