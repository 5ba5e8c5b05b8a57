/**
 * Builds the cross-chain token index from the token columns of every loaded
 * chain (runs in a build worker; the result is shared columns).
 */
import { CHAINS, SUPPORTED_CHAIN_IDS, type ChainId } from "../chains/chains.js";
import { nameFeatures } from "../query/name-parity.js";
import {
  FLAG_INITIALS_MATCH_SYMBOL,
  FLAG_NAME_CONTAINS_SYMBOL,
  FLAG_WRAPPED_NATIVE,
  type TokenIndexData,
} from "../query/token-index.js";
import { columnString, encodeStringColumn, sharedArray } from "../util/shared-columns.js";
import type { ChainTokenColumns } from "./compiled-chain.js";

interface Instance {
  chainId: ChainId;
  column: ChainTokenColumns;
  row: number;
  address: string;
  normalizedSymbol: string;
}

export function compileTokenIndex(chains: ReadonlyArray<{ chainId: ChainId; tokens: ChainTokenColumns }>): TokenIndexData {
  const instances: Instance[] = [];
  for (const { chainId, tokens } of chains) {
    for (let row = 0; row < tokens.count; row++) {
      instances.push({
        chainId,
        column: tokens,
        row,
        address: columnString(tokens.address, row),
        normalizedSymbol: columnString(tokens.normalizedSymbol, row),
      });
    }
  }
  instances.sort((a, b) => {
    if (a.normalizedSymbol !== b.normalizedSymbol) return a.normalizedSymbol < b.normalizedSymbol ? -1 : 1;
    const tvlA = a.column.tvl[a.row];
    const tvlB = b.column.tvl[b.row];
    if (tvlA !== tvlB) return tvlB - tvlA;
    if (a.chainId !== b.chainId) return a.chainId - b.chainId;
    return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
  });

  const n = instances.length;
  const chainId = sharedArray(Uint32Array, n);
  const chainBit = sharedArray(Uint8Array, n);
  const tvl = sharedArray(Float64Array, n);
  const price = sharedArray(Float64Array, n);
  const swaps = sharedArray(Float64Array, n);
  const volume = sharedArray(Float64Array, n);
  const flags = sharedArray(Uint8Array, n);
  const nameId = sharedArray(Uint32Array, n);
  const firstWordId = sharedArray(Uint32Array, n);
  const wordStart = sharedArray(Uint32Array, n + 1);
  const wordLists: number[][] = new Array(n);
  const addressJson: string[] = new Array(n);
  const headerJson: string[] = new Array(n);
  const groupStarts: number[] = [];
  const groupSymbols: string[] = [];

  const names = new Map<string, number>();
  const wordIds = new Map<string, number>();
  const intern = (map: Map<string, number>, key: string) => {
    let id = map.get(key);
    if (id === undefined) map.set(key, (id = map.size + 1));
    return id;
  };
  const chainBits = new Map<number, number>(SUPPORTED_CHAIN_IDS.map((id, i) => [id, 1 << i]));

  let totalWords = 0;
  for (let i = 0; i < n; i++) {
    const inst = instances[i];
    if (i === 0 || inst.normalizedSymbol !== instances[i - 1].normalizedSymbol) {
      groupStarts.push(i);
      groupSymbols.push(inst.normalizedSymbol);
    }
    const { column, row } = inst;
    chainId[i] = inst.chainId;
    chainBit[i] = chainBits.get(inst.chainId)!;
    tvl[i] = column.tvl[row];
    price[i] = column.price[row];
    swaps[i] = column.swaps[row];
    volume[i] = column.volume[row];

    const features = nameFeatures(columnString(column.normalizedName, row), inst.normalizedSymbol);
    let f = 0;
    if (inst.address === CHAINS[inst.chainId].wrappedNative) f |= FLAG_WRAPPED_NATIVE;
    if (features.containsSymbol) f |= FLAG_NAME_CONTAINS_SYMBOL;
    if (features.initialsMatchSymbol) f |= FLAG_INITIALS_MATCH_SYMBOL;
    flags[i] = f;
    nameId[i] = intern(names, features.cleaned);
    firstWordId[i] = features.words.length > 0 ? intern(wordIds, features.words[0]) : 0;
    const ids = [...new Set(features.words.map((w) => intern(wordIds, w)))].sort((a, b) => a - b);
    wordLists[i] = ids;
    totalWords += ids.length;

    addressJson[i] = JSON.stringify({ chainId: inst.chainId, address: inst.address });
    headerJson[i] =
      `"symbol":${JSON.stringify(columnString(column.symbol, row))}` +
      `,"name":${JSON.stringify(columnString(column.name, row))}` +
      `,"logoUrl":${JSON.stringify(columnString(column.logoUrl, row))}`;
  }

  const words = sharedArray(Uint32Array, totalWords);
  let at = 0;
  for (let i = 0; i < n; i++) {
    wordStart[i] = at;
    for (const id of wordLists[i]) words[at++] = id;
  }
  wordStart[n] = at;

  const groupStart = sharedArray(Uint32Array, groupStarts.length + 1);
  groupStart.set(groupStarts);
  groupStart[groupStarts.length] = n;

  return {
    instanceCount: n,
    groupCount: groupStarts.length,
    groupStart,
    groupSymbol: encodeStringColumn(groupSymbols),
    chainId,
    chainBit,
    tvl,
    price,
    swaps,
    volume,
    flags,
    nameId,
    firstWordId,
    wordStart,
    words,
    addressJson: encodeStringColumn(addressJson),
    headerJson: encodeStringColumn(headerJson),
  };
}
