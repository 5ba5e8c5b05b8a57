/**
 * Stream topics (live.md §13): the grammar, the canonical (lowercase) text,
 * and the uWS topics a client topic stands for. Pure: refusals are returned as
 * faults, which the HTTP edge answers as its usual errors (src/http/stream-input.ts).
 *
 * | client topic                      | uWS topics (what events are published to)      |
 * |-----------------------------------|------------------------------------------------|
 * | `changes`                         | `changes:<c>` for every chain the key may read |
 * | `changes:<chainId>`               | itself                                         |
 * | `pool:<chainId>:<0x40 or 0x64 hex>` | itself                                       |
 * | `token:<chainId>:<0x40 hex>`      | itself                                         |
 */
import { isSupportedChainId, SUPPORTED_CHAIN_IDS_ASCENDING, type ChainId } from "../chains/chains.js";
import { chainBitOf } from "../query/token-query.js";

/** Longest topic text read (a pool topic of the largest chain id and a 32-byte address is 79 characters). */
export const MAX_TOPIC_LENGTH = 100;

export type TopicKind = "changes" | "pool" | "token";

/** A valid topic: its canonical text and what it names. */
export interface Topic {
  /** Canonical: lowercase, as answered in `subscribed`. */
  readonly text: string;
  readonly kind: TopicKind;
  /** null: `changes` (every chain the key may read). */
  readonly chainId: ChainId | null;
  /** Lowercase `0x…` address (pool and token topics), else null. */
  readonly address: string | null;
}

/** Why a topic text is refused. */
export type TopicFault =
  | { readonly fault: "malformed" }
  /** The chain id is a canonical integer but no supported chain. */
  | { readonly fault: "unsupported-chain"; readonly chainId: number };

const TOPIC = /^(changes|pool|token)(?::(0|[1-9][0-9]{0,14}))?(?::(0x[0-9a-f]+))?$/;
const HEX_40 = 42;
const HEX_64 = 66;

/** Parses a topic sent by a client (any letter case). */
export function parseTopic(sent: string): Topic | TopicFault {
  if (sent.length === 0 || sent.length > MAX_TOPIC_LENGTH) return MALFORMED;
  const text = sent.toLowerCase();
  const m = TOPIC.exec(text);
  if (m === null) return MALFORMED;
  const kind = m[1] as TopicKind;
  const chainText = m[2];
  const address = m[3] ?? null;
  if (kind === "changes") {
    if (address !== null) return MALFORMED;
    if (chainText === undefined) return { text, kind, chainId: null, address: null };
  } else {
    if (chainText === undefined || address === null) return MALFORMED;
    if (address.length !== HEX_40 && !(kind === "pool" && address.length === HEX_64)) return MALFORMED;
  }
  const chainId = Number(chainText);
  if (!isSupportedChainId(chainId)) return { fault: "unsupported-chain", chainId };
  return { text, kind, chainId, address };
}

const MALFORMED: TopicFault = { fault: "malformed" };

export function isTopic(parsed: Topic | TopicFault): parsed is Topic {
  return (parsed as Topic).text !== undefined;
}

/** The topic of one chain's change sets (`changes:<c>`). */
export function changesTopic(chainId: ChainId): Topic {
  return CHANGES_TOPICS.get(chainId)!;
}

const CHANGES_TOPICS = new Map<ChainId, Topic>(
  SUPPORTED_CHAIN_IDS_ASCENDING.map((c) => [c, { text: `changes:${c}`, kind: "changes", chainId: c, address: null }]),
);

/** The topic text of a pool or token (what its events are published to). */
export function recordTopic(kind: "pool" | "token", chainId: ChainId, address: string): string {
  return `${kind}:${chainId}:${address}`;
}

/**
 * The uWS topics (what events are published to) a connection's client topics
 * stand for, in first-seen order without repeats: `changes` becomes the
 * `changes:<c>` of the chains in `readable` (the key's: a chainMask).
 */
export function uwsTopics(topics: readonly Topic[], readable: number): Topic[] {
  const out = new Map<string, Topic>();
  for (const topic of topics) {
    if (topic.chainId !== null) out.set(topic.text, topic);
    else
      for (const c of SUPPORTED_CHAIN_IDS_ASCENDING) {
        if ((readable & chainBitOf(c)) !== 0) out.set(changesTopic(c).text, changesTopic(c));
      }
  }
  return [...out.values()];
}
