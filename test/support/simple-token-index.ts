/**
 * The cross-chain token index the simplest way (the oracle of test/unit/snapshot/token-index-simple.test.ts):
 * every instance as an object, one sort by rank (normalizedSymbol asc in code units, TVL desc, chainId asc,
 * address asc), then names, words and search strings numbered by first use in rank order through Maps of
 * strings. Only the pieces a chain's run holds as bytes (its JSON pieces, flags) are read from the run, by row;
 * the address table is the one hash-table layout there is (compileAddressTable) and the default list is the
 * query engine's. The index holds its JSON pieces in its chains' runs (`json`, `jsonAt`); `resolvedIndex` reads
 * them per instance, as the simple index has them.
 */
import { SUPPORTED_CHAIN_IDS, type ChainId } from "../../src/chains/chains.js";
import { evaluateTokenList } from "../../src/query/evaluate-token-list.js";
import { chainMask, DEFAULT_TOKEN_QUERY } from "../../src/query/token-query.js";
import { compileAddressTable } from "../../src/snapshot/compile-token-lookups.js";
import { compileTokenRun } from "../../src/snapshot/compile-token-run.js";
import type { ChainTokenColumns, TokenRunData } from "../../src/tables/compiled-chain.js";
import { columnStrings, encodeStringColumn } from "../../src/tables/shared-columns.js";
import { FIELD_NAME, FIELD_SYMBOL, instanceJson, type TokenIndexColumns, type TokenIndexData } from "../../src/tables/token-index.js";
import { cleanName } from "./reference-token-list.js";

interface Input {
  readonly chainId: ChainId;
  readonly tokens: ChainTokenColumns;
  readonly run?: TokenRunData;
}

interface Instance {
  chainId: ChainId;
  row: number;
  symbol: string;
  name: string;
  normalizedSymbol: string;
  normalizedName: string;
  address: string;
  tvl: number;
  price: number;
  swaps: number;
  volume: number;
  flags: number;
  addressJson: string;
  headerJson: string;
  metadataJson: string;
}

/** An index with each instance's JSON pieces as strings, in place of the chains' columns they are read from. */
export type ResolvedIndex = Omit<TokenIndexData, "reuse" | "json" | "jsonAt"> & {
  readonly addressJson: readonly string[];
  readonly headerJson: readonly string[];
  readonly metadataJson: readonly string[];
};

/** `index` with each instance's JSON pieces read from its chain's columns (what the simple index is compared with). */
export function resolvedIndex(index: Omit<TokenIndexData, "reuse">): ResolvedIndex {
  const { json: _json, jsonAt: _jsonAt, ...rest } = index;
  const decoder = new TextDecoder();
  const pieces = (piece: "addressJson" | "headerJson" | "metadataJson") =>
    Array.from({ length: index.instanceCount }, (_, i) => decoder.decode(instanceJson(index, piece, i)));
  return { ...rest, addressJson: pieces("addressJson"), headerJson: pieces("headerJson"), metadataJson: pieces("metadataJson") };
}

/** A string as its UTF-8 bytes decode (a lone surrogate becomes U+FFFD): what the index keys strings by. */
const asBytes = (s: string) => new TextDecoder().decode(new TextEncoder().encode(s));

/** The index's columns and default list (everything but what it saves for reuse). */
export function simpleTokenIndex(inputs: readonly Input[]): ResolvedIndex {
  const instances: Instance[] = [];
  for (const { chainId, tokens, run: given } of inputs) {
    const run = given ?? compileTokenRun(chainId, tokens);
    const text = (column: typeof tokens.symbol) => columnStrings(column);
    const [symbol, name, normalizedSymbol, normalizedName, address] = [
      tokens.symbol,
      tokens.name,
      tokens.normalizedSymbol,
      tokens.normalizedName,
      tokens.address,
    ].map(text);
    const [addressJson, headerJson, metadataJson] = [run.addressJson, run.headerJson, run.metadataJson].map(text);
    const rankPosition = new Map<number, number>();
    run.rank.forEach((row, position) => rankPosition.set(row, position));
    for (let row = 0; row < tokens.count; row++) {
      const p = rankPosition.get(row)!;
      instances.push({
        chainId,
        row,
        symbol: symbol[row],
        name: name[row],
        normalizedSymbol: normalizedSymbol[row],
        normalizedName: normalizedName[row],
        address: address[row],
        tvl: tokens.tvl[row],
        price: tokens.price[row],
        swaps: tokens.swaps[row],
        volume: tokens.volume[row],
        flags: run.flags[row],
        addressJson: addressJson[p],
        headerJson: headerJson[p],
        metadataJson: metadataJson[p],
      });
    }
  }
  const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  instances.sort(
    (a, b) =>
      byCodeUnits(a.normalizedSymbol, b.normalizedSymbol) || b.tvl - a.tvl || a.chainId - b.chainId || byCodeUnits(a.address, b.address),
  );
  const n = instances.length;

  const groupSymbols: string[] = [];
  const groupStart: number[] = [];
  const groupOf = instances.map((t, i) => {
    if (i === 0 || t.normalizedSymbol !== instances[i - 1].normalizedSymbol) {
      groupSymbols.push(t.normalizedSymbol);
      groupStart.push(i);
    }
    return groupSymbols.length - 1;
  });
  groupStart.push(n);

  // Names and words, numbered from 1 by first use.
  const nameIds = new Map<string, number>();
  const wordIds = new Map<string, number>();
  const nameId: number[] = [];
  const firstWordId: number[] = [];
  const wordStart: number[] = [];
  const words: number[] = [];
  for (const t of instances) {
    const cleaned = cleanName(t.normalizedName);
    const ids = cleaned
      .split(" ")
      .filter((w) => w.length > 0)
      .map((w) => {
        if (!wordIds.has(w)) wordIds.set(w, wordIds.size + 1);
        return wordIds.get(w)!;
      });
    if (!nameIds.has(cleaned)) nameIds.set(cleaned, nameIds.size + 1);
    nameId.push(nameIds.get(cleaned)!);
    firstWordId.push(ids[0] ?? 0);
    wordStart.push(words.length);
    words.push(...[...new Set(ids)].sort((a, b) => a - b));
  }
  wordStart.push(words.length);

  // Search strings, numbered from 0 by first use: each instance's lowercased symbol, normalizedSymbol, name and
  // normalizedName (empty ones left out), with the fields each is.
  const searchIds = new Map<string, number>();
  const postingsOf: number[][] = [];
  instances.forEach((t, i) => {
    const fields = new Map<string, number>();
    for (const [value, field] of [
      [t.symbol, FIELD_SYMBOL],
      [t.normalizedSymbol, FIELD_SYMBOL],
      [t.name, FIELD_NAME],
      [t.normalizedName, FIELD_NAME],
    ] as const) {
      if (value.length > 0) fields.set(asBytes(value.toLowerCase()), (fields.get(asBytes(value.toLowerCase())) ?? 0) | field);
    }
    for (const [value, field] of fields) {
      if (!searchIds.has(value)) {
        searchIds.set(value, searchIds.size);
        postingsOf.push([]);
      }
      postingsOf[searchIds.get(value)!].push((i << 2) | field);
    }
  });
  const searchStrings = [...searchIds.keys()];
  const searchOffsets = [0];
  for (const s of searchStrings) searchOffsets.push(searchOffsets[searchOffsets.length - 1] + s.length);
  const postingStart = [0];
  for (const p of postingsOf) postingStart.push(postingStart[postingStart.length - 1] + p.length);

  // Single-chain orders: a chain's instances by TVL desc (asc), then address asc.
  const chainStart = [0];
  const chainByTvlDesc: number[] = [];
  const chainByTvlAsc: number[] = [];
  const chainRankDesc = new Array<number>(n).fill(0);
  const chainRankAsc = new Array<number>(n).fill(0);
  for (const chainId of SUPPORTED_CHAIN_IDS) {
    const mine = instances.map((t, i) => i).filter((i) => instances[i].chainId === chainId);
    const byAddress = (a: number, b: number) => byCodeUnits(instances[a].address, instances[b].address);
    const desc = [...mine].sort((a, b) => instances[b].tvl - instances[a].tvl || byAddress(a, b));
    const asc = [...mine].sort((a, b) => instances[a].tvl - instances[b].tvl || byAddress(a, b));
    desc.forEach((i, k) => (chainRankDesc[i] = k));
    asc.forEach((i, k) => (chainRankAsc[i] = k));
    chainByTvlDesc.push(...desc);
    chainByTvlAsc.push(...asc);
    chainStart.push(chainByTvlDesc.length);
  }

  const addressBytes = new Uint8Array(n * 20);
  instances.forEach((t, i) => addressBytes.set(Buffer.from(t.address.slice(2), "hex"), i * 20));
  const columns: Omit<TokenIndexColumns, "json" | "jsonAt"> = {
    instanceCount: n,
    groupCount: groupSymbols.length,
    groupStart: Uint32Array.from(groupStart),
    groupSymbol: encodeStringColumn(groupSymbols),
    chainId: Uint32Array.from(instances, (t) => t.chainId),
    chainBit: Uint8Array.from(instances, (t) => 1 << SUPPORTED_CHAIN_IDS.indexOf(t.chainId)),
    chainRow: Uint32Array.from(instances, (t) => t.row),
    tvl: Float64Array.from(instances, (t) => t.tvl),
    price: Float64Array.from(instances, (t) => t.price),
    swaps: Float64Array.from(instances, (t) => t.swaps),
    volume: Float64Array.from(instances, (t) => t.volume),
    flags: Uint8Array.from(instances, (t) => t.flags),
    nameId: Uint32Array.from(nameId),
    firstWordId: Uint32Array.from(firstWordId),
    wordStart: Uint32Array.from(wordStart),
    words: Uint32Array.from(words),
    groupOf: Uint32Array.from(groupOf),
    addressBytes,
    ...compileAddressTable(addressBytes, n),
    chainStart: Uint32Array.from(chainStart),
    chainByTvlDesc: Uint32Array.from(chainByTvlDesc),
    chainByTvlAsc: Uint32Array.from(chainByTvlAsc),
    chainRankDesc: Uint32Array.from(chainRankDesc),
    chainRankAsc: Uint32Array.from(chainRankAsc),
    searchText: new TextEncoder().encode(searchStrings.join("")),
    searchOffsets: Uint32Array.from(searchOffsets),
    postingStart: Uint32Array.from(postingStart),
    postings: Uint32Array.from(postingsOf.flat()),
  };
  const mask = chainMask(inputs.map((c) => c.chainId));
  return {
    ...columns,
    addressJson: instances.map((t) => t.addressJson),
    headerJson: instances.map((t) => t.headerJson),
    metadataJson: instances.map((t) => t.metadataJson),
    // A list is evaluated from the columns alone (no JSON piece is read).
    defaultList: { mask, list: evaluateTokenList({ ...columns, json: [], jsonAt: new Uint32Array(0) }, DEFAULT_TOKEN_QUERY, mask) },
  };
}
