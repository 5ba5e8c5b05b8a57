/**
 * Sides A and B of a pool search on one snapshot (api-extended.md §10): the
 * named tokens plus the baskets' addresses on their chains, the wrapped native
 * token added for an all-zero address, as token rows per chain.
 *
 * Baskets come resolved (basket-view.ts: once per baskets file and snapshot);
 * only the request's own tokens (at most 100 a side) are looked up here, so a
 * side costs the rows it joins, never a parse or lookup per basket address.
 */
import { NATIVE_ADDRESS, SUPPORTED_CHAIN_IDS, type ChainId } from "../chains/chains.js";
import type { ServingSnapshot } from "./serving-snapshot.js";
import type { BasketView } from "./basket-view.js";
import type { SearchChain, TokenRows } from "../query/pool-search.js";
import { instanceOnChain, parseAddress } from "../tables/token-lookup.js";
import { protocolAllowed, type PoolSearchSpec, type SideSpec } from "../query/pool-search-query.js";

export interface ResolvedSearch {
  /** The chains side A has tokens on (and that the snapshot holds), ascending. */
  readonly chains: SearchChain[];
  /** Per entry of `chains`: whether its wrapped native token is shown as the native asset. */
  readonly toNative: boolean[];
}

/** One side on one chain. */
interface SideOnChain {
  /** The side names an address on the chain (a token, or a basket in scope with an address there). */
  named: boolean;
  /** The chain's all-zero address is among them. */
  native: boolean;
  /** Token rows held, in pieces that may overlap. */
  pieces: TokenRows[];
}

function sideOnChain(
  side: SideSpec,
  chainId: ChainId,
  snapshot: ServingSnapshot,
  baskets: BasketView,
  defaultChains: readonly ChainId[],
): SideOnChain {
  const out: SideOnChain = { named: false, native: false, pieces: [] };
  let tokenRows: number[] | null = null;
  for (const t of side.tokens) {
    if (t.chainId !== chainId) continue;
    out.named = true;
    if (t.address === NATIVE_ADDRESS) out.native = true;
    const instance = instanceOnChain(snapshot.tokenIndex, chainId, parseAddress(t.address)!);
    if (instance >= 0) (tokenRows ??= []).push(snapshot.tokenIndex.chainRow[instance]);
  }
  if (tokenRows !== null) out.pieces.push(tokenRows);
  for (const b of side.baskets) {
    if (!(b.chainIds ?? defaultChains).includes(chainId)) continue;
    const basket = baskets.catalogue.get(b.basketId);
    if (basket === undefined) continue; // checked by the caller
    for (const chain of basket.chains) {
      if (chain.chainId !== chainId) continue;
      out.named = true;
      if (chain.listsNative) out.native = true;
      const rows = baskets.rowsOn(basket, chainId);
      if (rows.length > 0) out.pieces.push(rows);
    }
  }
  return out;
}

/** The union of a side's pieces (and the wrapped native row when asked), each row once. */
function sideRows(side: SideOnChain, tokenCount: number, wrappedRow: number): TokenRows {
  const { pieces } = side;
  if (wrappedRow < 0 && pieces.length === 1) return pieces[0]; // one basket or the tokens alone: unique already
  const seen = new Uint8Array(tokenCount);
  const rows: number[] = [];
  const add = (row: number) => {
    if (seen[row] === 0) {
      seen[row] = 1;
      rows.push(row);
    }
  };
  for (const piece of pieces) for (let k = 0; k < piece.length; k++) add(piece[k]);
  if (wrappedRow >= 0) add(wrappedRow);
  return rows;
}

/**
 * @param baskets the baskets in force, resolved on `snapshot`
 * @param keyChains the chains the key may read (ascending), null for every
 *   chain: the scope of a basket named without chains.
 */
export function resolveSearch(
  spec: PoolSearchSpec,
  snapshot: ServingSnapshot,
  baskets: BasketView,
  keyChains: readonly ChainId[] | null,
): ResolvedSearch {
  const defaultChains = keyChains ?? SUPPORTED_CHAIN_IDS;
  const chains: SearchChain[] = [];
  const toNative: boolean[] = [];
  for (const chainId of snapshot.chainIds) {
    const a = sideOnChain(spec.a, chainId, snapshot, baskets, defaultChains);
    if (!a.named) continue;
    const compiled = snapshot.chains.get(chainId);
    if (compiled === undefined) continue;
    const b = spec.b === null ? null : sideOnChain(spec.b, chainId, snapshot, baskets, defaultChains);
    const index = compiled.poolSearch;
    const wrappedFor = (side: SideOnChain) => (spec.useWrappedForNative && side.native ? index.wrappedRow : -1);
    const protocolFlags = new Uint8Array(index.protocolIds.length);
    index.protocolIds.forEach((id, i) => (protocolFlags[i] = protocolAllowed(spec.filters, id) ? 1 : 0));
    chains.push({
      chainId,
      index,
      pools: compiled.pools,
      a: sideRows(a, index.tokenCount, wrappedFor(a)),
      b: b === null ? null : sideRows(b, index.tokenCount, wrappedFor(b)),
      protocolAllowed: protocolFlags,
    });
    toNative.push(spec.wrappedToNative === "ALWAYS" || (spec.wrappedToNative === "AUTO" && (a.native || (b?.native ?? false))));
  }
  return { chains, toNative };
}
