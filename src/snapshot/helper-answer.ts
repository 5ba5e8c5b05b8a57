/**
 * The helper thread's end of a helper link (helper-link.ts): waits for the chain task's one message, takes
 * the job unless the chain's thread got to it first, builds it, answers, and closes its end.
 */
import { once } from "node:events";
import { askedToStop, claimOffer, HELPER_RANGE_TAKEN, type HelperJobMessage, type HelperLink, type HelperReply } from "./helper-link.js";

/**
 * @param build the work; `stopAsked` says whether the chain's end asked it to stop (its own part failed). A throw
 *   is answered as a failure, never thrown here.
 */
export async function answerOffer<Job, Result>(link: HelperLink, build: (job: Job, stopAsked: () => boolean) => Result): Promise<void> {
  const port = link.port;
  try {
    const [message] = (await Promise.race([once(port, "message"), once(port, "close").then(() => [{ job: null }])])) as [
      HelperJobMessage<Job>,
    ];
    const job = message.job;
    if (job === null || !claimOffer(link.claim, HELPER_RANGE_TAKEN)) return;
    let reply: HelperReply<Result>;
    try {
      reply = { result: build(job, () => askedToStop(link.claim)) };
    } catch (error) {
      reply = { failed: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  } finally {
    port.close();
  }
}
