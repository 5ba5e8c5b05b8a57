/**
 * Symbols and names for the long tail: meme-ish words, initials, digits, a
 * few lowercase or mixed-case tickers, and a little junk (empty strings,
 * non-ASCII) as real indexers see on-chain.
 */
import type { Rng } from "./random.js";

export interface TokenIdentity {
  readonly symbol: string;
  readonly name: string;
}

const HEADS = [
  "Moon",
  "Doge",
  "Pepe",
  "Based",
  "Frog",
  "Degen",
  "Nova",
  "Luna",
  "Hyper",
  "Giga",
  "Meta",
  "Quant",
  "Zen",
  "Astro",
  "Neko",
  "Shiba",
  "Turbo",
  "Vault",
  "Yield",
  "Blue",
  "Dark",
  "Liquid",
  "Solar",
  "Brett",
  "Toshi",
  "Mochi",
  "Bonk",
  "Crab",
  "Whale",
  "Otter",
  "Panda",
  "Tiger",
  "Falcon",
  "Raven",
  "Comet",
  "Pixel",
  "Orbit",
  "Prism",
  "Ember",
  "Frost",
  "Nimbus",
  "Echo",
  "Vector",
  "Cipher",
  "Onyx",
  "Jade",
  "Ruby",
  "Amber",
  "Cobalt",
  "Quartz",
  "Titan",
  "Atlas",
  "Apex",
  "Zero",
  "Nexus",
  "Flux",
  "Pulse",
  "Spark",
  "Drift",
  "Wave",
  "Storm",
  "Blaze",
  "Glow",
  "Lumen",
  "Kaiju",
  "Ronin",
  "Samurai",
  "Ninja",
  "Wizard",
  "Goblin",
  "Troll",
  "Pirate",
  "Cowboy",
  "Astronaut",
  "Robot",
  "Cyber",
  "Nano",
  "Mega",
  "Ultra",
  "Super",
  "Alpha",
  "Beta",
  "Gamma",
  "Delta",
  "Sigma",
  "Omega",
  "Kappa",
  "Lambda",
  "Rho",
  "Tau",
  "Chad",
  "Wojak",
  "Mog",
  "Popcat",
  "Bobo",
  "Andy",
  "Landwolf",
  "Keycat",
  "Miggles",
  "Ponke",
  "Skibidi",
  "Gork",
  "Grok",
];

const TAILS = [
  "Coin",
  "Token",
  "Finance",
  "Protocol",
  "AI",
  "Inu",
  "Cat",
  "Dog",
  "Swap",
  "DAO",
  "Network",
  "Labs",
  "Cash",
  "Dollar",
  "Bits",
  "Chain",
  "Capital",
  "Markets",
  "Agent",
  "World",
  "Club",
  "Gold",
  "Silver",
  "Points",
  "Yield",
  "Staked",
  "Wrapped",
  "Classic",
  "Pro",
  "X",
  "Verse",
  "Land",
  "Game",
  "Bot",
  "Fi",
  "Pad",
  "Hub",
  "Base",
  "Bridge",
];

const SCRIPT_JUNK = ["🐸", "🚀", "Ξ", "₿", "ПЕПЕ", "ドージ", "猫", "Ω", "€", "™"];

function letters(rng: Rng, count: number): string {
  let out = "";
  for (let i = 0; i < count; i++) out += String.fromCharCode(65 + rng.int(0, 25));
  return out;
}

function symbolFrom(rng: Rng, head: string, tail: string): string {
  const roll = rng.next();
  if (roll < 0.38) return head.toUpperCase().slice(0, rng.int(3, 6));
  if (roll < 0.55) return (head[0]! + tail[0]! + letters(rng, rng.int(0, 2))).toUpperCase();
  if (roll < 0.7) return letters(rng, rng.int(3, 5));
  if (roll < 0.8) return head.toUpperCase().slice(0, rng.int(2, 4)) + String(rng.int(0, 999));
  if (roll < 0.86) return rng.pick(["s", "w", "st", "u", "x", "e", "v"]) + head.toUpperCase().slice(0, rng.int(3, 5));
  if (roll < 0.9) return head.toLowerCase();
  if (roll < 0.95) return (head + tail).toUpperCase().slice(0, rng.int(4, 8));
  return head.slice(0, rng.int(3, 6));
}

function nameFrom(rng: Rng, head: string, tail: string): string {
  const roll = rng.next();
  if (roll < 0.55) return `${head} ${tail}`;
  if (roll < 0.75) return head;
  if (roll < 0.85) return `${head}${tail}`;
  if (roll < 0.93) return `${rng.pick(HEADS)} ${head} ${tail}`;
  return `${head} ${tail} ${rng.int(2, 9)}.0`;
}

/** A plausible long-tail identity; about 1 % are junk (empty or non-ASCII). */
export function randomIdentity(rng: Rng): TokenIdentity {
  const head = rng.pick(HEADS);
  const tail = rng.pick(TAILS);
  let symbol = symbolFrom(rng, head, tail);
  let name = nameFrom(rng, head, tail);
  const junk = rng.next();
  if (junk < 0.003) name = "";
  else if (junk < 0.005) symbol = "";
  else if (junk < 0.01) {
    const glyph = rng.pick(SCRIPT_JUNK);
    symbol = rng.chance(0.5) ? glyph + symbol : glyph;
    name = `${glyph} ${name}`;
  }
  return { symbol, name };
}

/** Draws identities until one whose symbol is not reserved by the hand-made catalogs. */
export function unreservedIdentity(rng: Rng, reserved: ReadonlySet<string>): TokenIdentity {
  for (;;) {
    const identity = randomIdentity(rng);
    if (!reserved.has(identity.symbol)) return identity;
  }
}

export function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}
