/**
 * Reference implementation of the multi-chain token list (api-decisions.md §3, steps 1-5),
 * written straight from the spec text: simple and readable, not fast. It never looks at
 * the server's code. The black-box tests compare the server's paged answers against it.
 */
import anyAscii from "any-ascii";
import { CHAINS, type ChainId } from "../../src/chains/chains.js";
import type { SnapshotFile, SnapshotToken } from "../../src/api/snapshot-format.js";

export interface ReferenceRequest {
  config?: {
    matchAllSymbols?: boolean;
    orderBy?: { field?: "tvl"; direction?: "asc" | "desc" };
    // limit and cursor do not change the full list
    limit?: number;
    cursor?: string | null;
  };
  filters?: {
    chainIds?: number[];
    minimumTotalValuePooledUsd?: number;
    minimumSwapsCount?: number;
    minimumSwapVolumeUsd?: number;
    ignoreWrappedNative?: boolean;
  };
}

export interface ReferenceEntry {
  addresses: { chainId: number; address: string }[];
  symbol: string;
  name: string;
  logoUrl: string;
  chainIds: number[];
}

/** One token on one chain, with the fields the rules use. */
export interface Instance {
  chainId: number;
  address: string;
  symbol: string;
  name: string;
  logoUrl: string;
  normalizedSymbol: string;
  normalizedName: string;
  decimals: number;
  price: number;
  tvl: number;
  swaps: number;
  volume: number;
}

const NATIVE = "0x0000000000000000000000000000000000000000";

export function toInstance(chainId: number, t: SnapshotToken): Instance {
  return {
    chainId,
    address: t.address,
    symbol: t.symbol,
    name: t.name,
    logoUrl: t.logoUrl ?? `https://assets.smold.app/api/token/${chainId}/${t.address}/logo.svg`,
    normalizedSymbol: t.normalizedSymbol ?? anyAscii(t.symbol),
    normalizedName: t.normalizedName ?? anyAscii(t.name),
    decimals: t.decimals,
    price: t.trackedUsdPrice,
    tvl: t.trackedTotalValuePooledUsd,
    swaps: t.swapsCount,
    volume: t.trackedSwapVolumeUsd,
  };
}

/** Lowercase, keep only [a-z0-9 ], trim. */
export function cleanName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9 ]/g, "")
    .trim();
}

function words(cleaned: string): string[] {
  return cleaned.split(" ").filter((w) => w !== "");
}

function initials(cleaned: string): string {
  return words(cleaned)
    .map((w) => w[0])
    .join("");
}

function jaccard(a: string[], b: string[]): number {
  const setA = new Set(a);
  const setB = new Set(b);
  const union = new Set([...setA, ...setB]);
  if (union.size === 0) return 0;
  let both = 0;
  for (const w of setA) if (setB.has(w)) both++;
  return both / union.size;
}

/** The price parity check of §3 step 3. */
export function pricePasses(price: number, anchorPrice: number): boolean {
  if (anchorPrice === 0) return true;
  return Math.abs(price - anchorPrice) / anchorPrice <= 0.2;
}

/** The metadata parity check of §3 step 3 (both instances share the normalizedSymbol). */
export function namePasses(name: string, anchorName: string, symbol: string): boolean {
  const n1 = cleanName(name);
  const n2 = cleanName(anchorName);
  const sym = symbol.toLowerCase();
  // equal names
  if (n1 === n2) return true;
  // either name contains the (lowercased) symbol
  if (n1.includes(sym) || n2.includes(sym)) return true;
  // the initials of either name's words equal the symbol
  if (initials(n1) === sym || initials(n2) === sym) return true;
  // same first word and word-set Jaccard >= 0.5
  const w1 = words(n1);
  const w2 = words(n2);
  if (w1.length > 0 && w2.length > 0 && w1[0] === w2[0] && jaccard(w1, w2) >= 0.5) return true;
  return false;
}

/** Code-unit comparison (what `<` does on strings). */
export function compareStrings(a: string, b: string): number {
  if (a < b) return -1;
  if (a > b) return 1;
  return 0;
}

/** §3 step 2 ranking: TVL descending, then lower chainId, then lower address. */
function compareRank(a: Instance, b: Instance): number {
  if (a.tvl !== b.tvl) return b.tvl - a.tvl;
  if (a.chainId !== b.chainId) return a.chainId - b.chainId;
  return compareStrings(a.address, b.address);
}

/** One listed group of steps 1-4: its normalizedSymbol, TVL, listed members (rank order) and entry. */
export interface ReferenceGroup {
  key: string;
  tvl: number;
  members: Instance[];
  entry: ReferenceEntry;
}

/** Step 5: by group TVL; ties by normalizedSymbol ascending in both directions. */
export function referenceOrder(groups: ReferenceGroup[], direction: "asc" | "desc"): ReferenceGroup[] {
  return [...groups].sort((a, b) => {
    if (a.tvl !== b.tvl) return direction === "desc" ? b.tvl - a.tvl : a.tvl - b.tvl;
    return compareStrings(a.key, b.key);
  });
}

export function referenceTokenList(chains: SnapshotFile[], request: ReferenceRequest = {}): ReferenceEntry[] {
  return referenceOrder(referenceGroups(chains, request), request.config?.orderBy?.direction ?? "desc").map((g) => g.entry);
}

/** Steps 1-4: the listed groups, in no particular order. */
export function referenceGroups(chains: SnapshotFile[], request: ReferenceRequest = {}): ReferenceGroup[] {
  const config = request.config ?? {};
  const filters = request.filters ?? {};
  const matchAll = config.matchAllSymbols ?? false;
  const requested = filters.chainIds && filters.chainIds.length > 0 ? filters.chainIds : null;
  const minTvl = filters.minimumTotalValuePooledUsd ?? 10_000;
  const minSwaps = filters.minimumSwapsCount ?? 1_000;
  const minVolume = filters.minimumSwapVolumeUsd ?? 100_000;
  const ignoreWrapped = filters.ignoreWrappedNative ?? true;

  // Step 1: eligible instances.
  const eligible: Instance[] = [];
  for (const file of chains) {
    if (requested !== null && !requested.includes(file.chainId)) continue;
    const wrapped = CHAINS[file.chainId as ChainId].wrappedNative;
    for (const t of file.tokens) {
      if (!(t.trackedTotalValuePooledUsd > minTvl)) continue;
      if (!(t.swapsCount > minSwaps)) continue;
      if (!(t.trackedSwapVolumeUsd > minVolume)) continue;
      if (ignoreWrapped && t.address === wrapped) continue;
      eligible.push(toInstance(file.chainId, t));
    }
  }

  // Step 2: group by normalizedSymbol, rank within the group.
  const groups = new Map<string, Instance[]>();
  for (const inst of eligible) {
    const list = groups.get(inst.normalizedSymbol) ?? [];
    list.push(inst);
    groups.set(inst.normalizedSymbol, list);
  }

  const entries: ReferenceGroup[] = [];
  for (const [key, instances] of groups) {
    const ranked = [...instances].sort(compareRank);
    const anchor = ranked[0]!;

    // Step 3: parity against the anchor; canonical keeps the first passing instance per chain.
    const members: Instance[] = [];
    const chainsTaken = new Set<number>();
    for (const inst of ranked) {
      const passes = pricePasses(inst.price, anchor.price) && namePasses(inst.normalizedName, anchor.normalizedName, key);
      if (!passes) continue;
      if (!matchAll) {
        if (chainsTaken.has(inst.chainId)) continue;
        chainsTaken.add(inst.chainId);
      }
      members.push(inst);
    }

    // Step 4: the entry.
    const chainIds: number[] = [];
    for (const m of members) if (!chainIds.includes(m.chainId)) chainIds.push(m.chainId);
    let tvl = 0;
    for (const m of members) tvl += m.tvl;
    entries.push({
      key,
      tvl,
      members,
      entry: {
        addresses: members.map((m) => ({ chainId: m.chainId, address: m.address })),
        symbol: anchor.symbol,
        name: anchor.name,
        logoUrl: anchor.logoUrl,
        chainIds,
      },
    });
  }

  return entries;
}

export { NATIVE };
