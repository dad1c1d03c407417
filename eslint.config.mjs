import effect from "@effect/eslint-plugin"
import js from "@eslint/js"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["**/dist/**", "**/build/**", "**/node_modules/**", "**/*.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...effect.configs.dprint,
  {
    languageOptions: { parser: tseslint.parser },
    rules: {
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }],
      "no-restricted-syntax": ["error", {
        selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
        message: "Use Clock so tests stay deterministic."
      }, {
        selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
        message: "Use Random so tests stay deterministic."
      }],
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-namespace": "off",
      "@typescript-eslint/no-empty-object-type": ["error", { allowInterfaces: "with-single-extends" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "require-yield": "off"
    }
  },
  {
    // Plain JavaScript run by Node, as a user writes it.
    files: ["test/consumer/**/*.mjs", "scripts/**/*.mjs", "*.config.mjs"],
    languageOptions: { globals: { console: "readonly", process: "readonly" } }
  }
)
