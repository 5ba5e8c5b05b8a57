import UnpluginTypia from "@ryoppippi/unplugin-typia/vite";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // typia options must match the tsconfig plugin entry (finite: NaN and ±Infinity fail every number check).
  plugins: [UnpluginTypia({ cache: false, typia: { finite: true } })],
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
