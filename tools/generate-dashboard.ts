/** Writes config/monitoring/gateway-dashboard.json from tools/dashboard.ts (`npm run dashboard:generate`). */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dashboardText } from "./dashboard.js";

// dist/tools/generate-dashboard.js → the project root is two folders up.
const file = fileURLToPath(new URL("../../config/monitoring/gateway-dashboard.json", import.meta.url));
writeFileSync(file, dashboardText());
console.log(`wrote ${file}`);
