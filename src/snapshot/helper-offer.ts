/**
 * The chain thread's end of a helper link (helper-link.ts): may ask the helper for the file's hash first, then
 * offers the helper a job; for each, either takes the helper's answer or, when it got there first, keeps it and
 * does it itself. Neither end waits for the other to start.
 */
import type { MessagePort } from "node:worker_threads";
import {
  askToStop,
  claimHash,
  claimOffer,
  HELPER_RANGE_KEPT,
  helperHashes,
  type HelperHashMessage,
  type HelperJobMessage,
  type HelperLink,
  type HelperReply,
} from "./helper-link.js";

export class HelperOffer<Job, Result, HashJob = never, Hashed = never> {
  private offered = false;
  private closed = false;
  private reply: Promise<HelperReply<Result>> | null = null;
  /** The hash: not asked, asked (the helper's answer pending unless this end keeps it), or settled. */
  private hash: "none" | "asked" | "settled" = "none";

  constructor(private readonly link: HelperLink) {}

  /** Asks the helper to make the hash (before any offer). */
  askHash(job: HashJob): void {
    this.hash = "asked";
    this.link.port.postMessage({ hash: job } satisfies HelperHashMessage<HashJob>);
  }

  /** Whether the helper took the hash asked for (this end then leaves it to the helper). */
  helperHashes(): boolean {
    return this.hash === "asked" && helperHashes(this.link.claim);
  }

  /**
   * The helper's hash: null when none was asked or this thread got to it first (it makes it itself); throws when
   * the helper failed. Waited for before any offer.
   */
  async hashed(): Promise<Hashed | null> {
    if (this.hash !== "asked") return null;
    if (claimHash(this.link.claim, HELPER_RANGE_KEPT)) {
      this.hash = "settled";
      return null;
    }
    const reply = await nextReply<HelperReply<Hashed>>(this.link.port);
    this.hash = "settled";
    if ("failed" in reply) throw new Error(`the helper build thread failed: ${reply.failed}`);
    return reply.result;
  }

  /** Waits until a helper that took the hash is done with it (asked to stop: it reads the file, which is about to close). */
  async settleHash(): Promise<void> {
    if (this.hash !== "asked") return;
    askToStop(this.link.claim);
    await this.hashed().catch(() => null);
  }

  offer(job: Job): void {
    if (this.hash === "asked") throw new Error("a job offered before the hash asked for was taken");
    this.offered = true;
    this.reply = nextReply<HelperReply<Result>>(this.link.port);
    this.link.port.postMessage({ job } satisfies HelperJobMessage<Job>);
  }

  /**
   * The helper's result: null when this thread got to the job first (it builds it itself); throws when the
   * helper failed other than by rejecting the file.
   */
  async take(): Promise<Result | null> {
    if (this.keep()) return null;
    const reply = await this.reply!;
    if ("failed" in reply) throw new Error(`the helper build thread failed: ${reply.failed}`);
    return reply.result;
  }

  /** Stops the helper and waits until it no longer reads the file. */
  async stop(): Promise<void> {
    if (!this.offered) return;
    askToStop(this.link.claim);
    if (!this.keep()) await this.reply;
  }

  /** Tells a helper that was offered nothing so, and closes the link (idempotent). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.offered) this.link.port.postMessage({ job: null } satisfies HelperJobMessage<Job>);
    else askToStop(this.link.claim);
    this.link.port.close();
  }

  /** Claims the offered job for this thread; false when the helper took it first. */
  private keep(): boolean {
    return claimOffer(this.link.claim, HELPER_RANGE_KEPT);
  }
}

/** The next message on `port`, or a failure when the other end closes first (its thread ended). */
function nextReply<Reply>(port: MessagePort): Promise<Reply | { failed: string }> {
  return new Promise((resolve) => {
    const onMessage = (reply: Reply) => {
      port.off("close", onClose);
      resolve(reply);
    };
    const onClose = () => {
      port.off("message", onMessage);
      resolve({ failed: "its thread stopped before it answered" });
    };
    port.once("message", onMessage);
    port.once("close", onClose);
  });
}
