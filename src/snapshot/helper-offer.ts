/**
 * The chain thread's end of a helper link (helper-link.ts): offers the helper a job, then either takes the
 * helper's answer or, when it got to the job first, keeps it and builds it itself. Neither end waits for the
 * other to start.
 */
import type { MessagePort } from "node:worker_threads";
import { askToStop, claimOffer, HELPER_RANGE_KEPT, type HelperJobMessage, type HelperLink, type HelperReply } from "./helper-link.js";

export class HelperOffer<Job, Result> {
  private offered = false;
  private closed = false;
  private reply: Promise<HelperReply<Result>> | null = null;

  constructor(private readonly link: HelperLink) {}

  offer(job: Job): void {
    this.offered = true;
    this.reply = nextReply(this.link.port);
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
function nextReply<Result>(port: MessagePort): Promise<HelperReply<Result>> {
  return new Promise((resolve) => {
    const onMessage = (reply: HelperReply<Result>) => {
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
