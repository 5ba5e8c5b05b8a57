/**
 * The link between the two threads that build one chain file (docs/decisions/003-two-threads-on-one-chain.md):
 * a MessagePort each (the job one way, the answer the other) and two shared cells. The chain thread's end is
 * helper-offer.ts, the helper thread's end helper-answer.ts; this module holds what both read.
 *
 * The claim decides who builds the offered work, so neither thread ever waits for the other to start: it is
 * OPEN until the helper takes it as it starts (TAKEN) or the chain's thread keeps it when it gets there first
 * (KEPT); a helper that starts late then does nothing.
 *
 * Before the job, the chain's end may ask for the file's hash (HelperHashMessage), which the helper makes while
 * the chain's thread frames the file: a claim of its own decides the same way who makes it (the helper when it
 * starts in time, else the chain's thread when it needs it).
 */
import { MessageChannel, type MessagePort } from "node:worker_threads";

export interface HelperLink {
  readonly port: MessagePort;
  /**
   * [0]: the job's claim (HELPER_RANGE_OPEN, TAKEN or KEPT); [1]: 1 once the helper should stop (the chain's own part
   * failed); [2]: the hash's claim (the same values).
   */
  readonly claim: Int32Array;
}

export const HELPER_RANGE_OPEN = 0;
export const HELPER_RANGE_TAKEN = 1;
export const HELPER_RANGE_KEPT = 2;

/** The chain's end posts the helper exactly one of these: the job, or null when none is offered. */
export interface HelperJobMessage<Job> {
  readonly job: Job | null;
}

/** The helper's answer to a job (or a hash) it took. */
export type HelperReply<Result> = { readonly result: Result } | { readonly failed: string };

/** Runs `work` and makes its reply: its result, or its throw as a failure (never thrown across the link). */
export function replyOf<Result>(work: () => Result): HelperReply<Result> {
  try {
    return { result: work() };
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) };
  }
}

/** What the chain's end may post before the job: the hash it wants made while it frames the file. */
export interface HelperHashMessage<HashJob> {
  readonly hash: HashJob;
}

/** A new link: one end for the chain's task, one for the helper's (each moved to its thread with the task). */
export function openHelperLink(): { readonly chainEnd: HelperLink; readonly helperEnd: HelperLink } {
  const channel = new MessageChannel();
  const claim = new Int32Array(new SharedArrayBuffer(12));
  return { chainEnd: { port: channel.port1, claim }, helperEnd: { port: channel.port2, claim } };
}

/** The claim cells: the offered job's, and the hash's (asked for before the job). */
const JOB_CELL = 0;
const HASH_CELL = 2;

/** Claims the offered work for one end; false when the other end claimed it first. */
export function claimOffer(claim: Int32Array, by: typeof HELPER_RANGE_TAKEN | typeof HELPER_RANGE_KEPT): boolean {
  return claimCell(claim, JOB_CELL, by);
}

/** Claims the hash asked for one end; false when the other end claimed it first. */
export function claimHash(claim: Int32Array, by: typeof HELPER_RANGE_TAKEN | typeof HELPER_RANGE_KEPT): boolean {
  return claimCell(claim, HASH_CELL, by);
}

function claimCell(claim: Int32Array, cell: number, by: typeof HELPER_RANGE_TAKEN | typeof HELPER_RANGE_KEPT): boolean {
  return Atomics.compareExchange(claim, cell, HELPER_RANGE_OPEN, by) === HELPER_RANGE_OPEN;
}

/** Whether the helper took the hash. */
export function helperHashes(claim: Int32Array): boolean {
  return Atomics.load(claim, HASH_CELL) === HELPER_RANGE_TAKEN;
}

/** The chain's end asks the helper to stop. */
export function askToStop(claim: Int32Array): void {
  Atomics.store(claim, 1, 1);
}

/** Whether the helper was asked to stop. */
export function askedToStop(claim: Int32Array): boolean {
  return Atomics.load(claim, 1) !== 0;
}
