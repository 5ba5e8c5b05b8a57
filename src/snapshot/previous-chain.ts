/**
 * What a chain file's build reads of the chain's last accepted file (ChainFileInput.previous).
 */
import type { Protocol } from "../api/wire.js";
import type { ChainTokenColumns, TokenRunData } from "../tables/compiled-chain.js";
import type { PoolSearchIndexData } from "../tables/pool-search-index.js";
import type { PoolTableData } from "../tables/pool-table.js";
import type { RecordDigests } from "./record-digests.js";

/**
 * The chain's last accepted file as a build reads it (shared memory, not copied): what its records compiled to,
 * reused for the records whose bytes are unchanged (docs/decisions/013-incremental-builds.md), and what the
 * new file's change set is computed against.
 */
export interface PreviousChainTables {
  readonly pools: PoolTableData;
  readonly tokens: ChainTokenColumns;
  readonly tokenRun: TokenRunData;
  readonly poolSearch: PoolSearchIndexData;
  readonly protocols: readonly Protocol[];
  /** Its records' digests; null when it was decoded whole (the new file is then built in full and diffed). */
  readonly digests: RecordDigests | null;
}
