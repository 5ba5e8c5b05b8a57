/**
 * Per-request costs outside the query engine (authentication, next-page cursor,
 * envelope prefix): `npm run build && node dist/bench/micro/hot-paths.js`.
 */
import { Bench } from "tinybench";
import { authenticate } from "../../src/access/authenticate.js";
import { KeyStore } from "../../src/access/key-store.js";
import { CursorCodec, PositionWriter } from "../../src/query/cursor.js";
import { successPrefix } from "../../src/http/envelope.js";

const key = "lgw_bench_0123456789abcdef0123456789";
const store = new KeyStore({ keys: [{ id: "bench", name: "b", sha256: KeyStore.hashKey(key), status: "active" }] });
const codec = new CursorCodec(Buffer.from("bench-secret-bench-secret"));
const info = { path: "/v1/tokens", traceId: "abc" };
let sink = 0;
const bench = new Bench({ time: 700 });
bench
  .add("authenticate (valid key)", () => {
    sink += authenticate(`Bearer ${key}`, store, 1).id.length;
  })
  .add("next cursor (query hash + encode)", () => {
    sink += codec.encode(
      codec.scope("tokens.list", "|10000|1000|100000|1|0|desc"),
      7,
      new PositionWriter().u32(10).f64(123.5).string("USDC").bytes(),
    ).length;
  })
  .add("success envelope prefix", () => {
    sink += successPrefix(info, new Date(0).toISOString()).length;
  });
await bench.run();
console.table(bench.table());
if (sink < 0) console.log(sink);
