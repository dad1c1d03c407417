/**
 * EvaluatingBuiltins: the builtins that evaluate some of their arguments as
 * code a parser sees only as plain words (`printf -v`, `test -v`, `read`,
 * `let`, `trap`…). Apart from the wrapper tables because they run nothing
 * the unwrapping could read: they only cast a doubt on allow rules.
 *
 * @since 0.4.0
 */

const subscript = "(an array subscript runs code)"
const arithmetic: ReadonlyArray<string> = ["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]
const declarers: ReadonlyArray<string> = ["declare", "typeset", "local", "export", "readonly"]
const optionWith = (words: ReadonlyArray<string>, letter: string): boolean =>
  words.slice(1).some((word) => /^-[A-Za-z]*$/.test(word) && word.includes(letter))

/**
 * Builtins that evaluate some of their arguments as code, which a parser
 * sees only as plain words.
 */
export const evaluates = (words: ReadonlyArray<string>): string | undefined => {
  const [name, ...args] = words
  switch (name) {
    case "printf":
      return args[0]?.startsWith("-v") === true
        ? `printf -v assigns to a name bash evaluates ${subscript}`
        : undefined
    case "test":
    case "[":
    case "[[":
      if (args.includes("-v") || args.includes("-R")) return `${name} -v looks up a name bash evaluates ${subscript}`
      return args.some((arg) => arithmetic.includes(arg))
        ? `${name} with an arithmetic comparison evaluates its operands as arithmetic ${subscript}`
        : undefined
    case "read":
      return `read assigns to names bash evaluates ${subscript}`
    case "let":
      return `let evaluates its arguments as arithmetic ${subscript}`
    case "mapfile":
    case "readarray":
      return `${name} assigns to a name bash evaluates and can run a callback (-C)`
    case "unset":
      return args.some((arg) => arg.includes("[")) ? `unset with a subscript evaluates it ${subscript}` : undefined
    case "source":
    case ".":
      return `${name} runs the commands of a file these words do not show`
    case "trap":
      return "trap stores a command to run later"
    case "alias":
      return "alias changes what later words run"
    case "enable":
      return "enable loads or switches builtins, changing what later names run"
    case "hash":
      return optionWith(words, "p") ? "hash -p binds a name to any file, changing what it runs" : undefined
    case "complete":
    case "compgen":
      return optionWith(words, "C") ? `${name} -C runs or stores a command to run on completion` : undefined
    case "fc":
      return "fc runs commands from history"
    case "shopt":
      return "shopt changes how later commands are parsed and expanded"
    case "set":
      return args.length > 0 ? "set changes shell options that alter how later commands are parsed and run" : undefined
    case "wait":
      return optionWith(words, "p") ? `wait -p assigns to a name bash evaluates ${subscript}` : undefined
    case "getopts":
      return `getopts assigns to a name bash evaluates ${subscript}`
    default:
      if (
        name !== undefined && declarers.includes(name) && args.some((arg) => arg.includes("[") || arg.includes("="))
      ) {
        return `${name} evaluates a subscript or value it assigns ${subscript}`
      }
      return undefined
  }
}
