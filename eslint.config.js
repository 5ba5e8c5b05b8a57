// The lint gate (npm run lint): typescript-eslint's recommended rules and two type-checked ones, no import cycle, and the
// layering of docs/architecture.md: a module imports only from its own folder or from floors below.
import js from "@eslint/js";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import { importX } from "eslint-plugin-import-x";
import globals from "globals";
import tseslint from "typescript-eslint";

/**
 * The floors of src/, top to bottom (docs/architecture.md). A folder imports from itself and from the
 * floors below it, never from a floor above it nor from another folder of its own floor: a request
 * walks down (http -> access -> serving -> query -> tables -> api/util/chains) and never back.
 */
const FLOORS = [
  ["cli"],
  ["gateway.ts"],
  ["server"],
  ["config", "metrics"],
  ["http"],
  ["stream"],
  ["openapi", "access"],
  ["serving", "snapshot", "history"],
  ["query", "baskets"],
  ["tables", "origin"],
  ["api"],
  ["util"],
  ["log", "chains"],
];

const layerZones = FLOORS.flatMap((floor, level) =>
  floor.flatMap((folder) => {
    const forbidden = [...FLOORS.slice(0, level).flat(), ...floor.filter((other) => other !== folder)];
    if (forbidden.length === 0) return [];
    return [
      {
        target: `./src/${folder}`,
        from: forbidden.map((other) => `./src/${other}`),
        message: `src/${folder} is below these folders (docs/architecture.md, "Layers"): import downwards only.`,
      },
    ];
  }),
);

/** The server never imports the tools, benchmarks, tests or the build worker's entry file. */
const outsideZone = {
  target: "./src",
  from: ["./tools", "./bench", "./test", "./workers"],
  message: "src/ does not import what is outside it.",
};

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "bench/results/", ".bench-data/"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ["**/*.{js,mjs,ts}"],
    plugins: { "import-x": importX },
    languageOptions: { globals: { ...globals.node } },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      // `./x.js` in a TypeScript file names `./x.ts`.
      "import-x/resolver": undefined,
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: "tsconfig.json" })],
    },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "import-x/no-restricted-paths": ["error", { zones: [...layerZones, outsideZone] }],
      "import-x/no-self-import": "error",
      "import-x/no-useless-path-segments": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    // Type-checked rules, on every TypeScript file: one program over src, workers, bench, tools and test
    // (tsconfig.eslint.json; the build's tsconfig.json leaves the tests out). A promise nobody awaits gets a catch
    // that reports it, or `void` with a comment saying why it cannot reject; a switch over a union names every
    // member, its default (if any) an `unreachable` (src/util/unreachable.ts) where the union is closed.
    files: ["**/*.ts"],
    languageOptions: { parserOptions: { project: "./tsconfig.eslint.json", tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/switch-exhaustiveness-check": "error",
    },
  },
  {
    // The API reference page's own script runs in the browser (tools/bundle-docs-assets.mjs bundles it).
    files: ["assets/**/*.js"],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Tests read JSON answers of any shape.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
