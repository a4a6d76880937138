// ESLint for the page's own scripts (`make lint`): the recommended rules, in the
// browser and in a Web Worker (cell_model.js and cell_train.js run in both). The page
// loads its scripts as classic scripts that share one global scope, so a function one
// file declares at the top level is a global the others may call. ESLint and its two
// packages live in .venv/npm (the Makefile installs them), not beside this file.
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(new URL("./.venv/npm/package.json", import.meta.url));
const js = require("@eslint/js");
const globals = require("globals");

const STATIC = "book/_extra/_static";
const own = readdirSync(new URL(`./${STATIC}/`, import.meta.url))
  .filter((name) => name.endsWith(".js"));

// The top-level functions and constants each of the page's scripts declares.
const declared = {};
for (const name of own) {
  const text = readFileSync(new URL(`./${STATIC}/${name}`, import.meta.url), "utf8");
  const words = text.matchAll(/^(?:async )?(?:function\*?|const|let) +([A-Za-z_$][\w$]*)/gm);
  declared[name] = [...words].map(([, word]) => word);
}

// What a script may use without declaring it: the browser's and a worker's globals,
// Sphinx's search page (Search), and what the page's other scripts declare.
function globalsFor(name) {
  const others = own.filter((other) => other !== name).flatMap((other) => declared[other]);
  return {
    ...globals.browser, ...globals.worker, Search: "readonly",
    ...Object.fromEntries(others.map((word) => [word, "readonly"])),
  };
}

export default [
  { ignores: [`${STATIC}/vendor/**`, `${STATIC}/models/**`, "_build/**", ".venv/**"] },
  ...own.map((name) => ({
    files: [`${STATIC}/${name}`],
    languageOptions: { ecmaVersion: 2022, sourceType: "script", globals: globalsFor(name) },
    rules: {
      ...js.configs.recommended.rules,
      // a top-level function is there for the other scripts or the page to call
      "no-unused-vars": ["error", { vars: "local", args: "after-used" }],
    },
  })),
];
