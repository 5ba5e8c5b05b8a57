/**
 * The helper thread's end of a helper link (helper-link.ts): waits for the chain task's messages, makes the
 * file's hash when it is asked first and gets to it before the chain's thread, then takes the job unless the
 * chain's thread got to it first, builds it, answers, and closes its end.
 */
import { once } from "node:events";
import type { MessagePort } from "node:worker_threads";
import {
  askedToStop,
  claimHash,
  claimOffer,
  HELPER_RANGE_TAKEN,
  replyOf,
  type HelperHashMessage,
  type HelperJobMessage,
  type HelperLink,
} from "./helper-link.js";

/**
 * @param build the work; `stopAsked` says whether the chain's end asked it to stop (its own part failed). A throw
 *   is answered as a failure, never thrown here.
 * @param hash the hash the chain's end may ask for before the job (the same way: a throw is answered as a failure);
 *   without it, such a request is left to the chain's thread.
 */
export async function answerOffer<Job, Result, HashJob = never, Hashed = never>(
  link: HelperLink,
  build: (job: Job, stopAsked: () => boolean) => Result,
  hash?: (job: HashJob, stopAsked: () => boolean) => Hashed,
): Promise<void> {
  const port = link.port;
  const stopAsked = () => askedToStop(link.claim);
  try {
    let message = await nextMessage<HelperJobMessage<Job> | HelperHashMessage<HashJob>>(port);
    if ("hash" in message) {
      if (hash !== undefined && claimHash(link.claim, HELPER_RANGE_TAKEN)) {
        const hashJob = message.hash;
        port.postMessage(replyOf(() => hash(hashJob, stopAsked)));
      }
      message = await nextMessage<HelperJobMessage<Job>>(port);
    }
    const job = "job" in message ? message.job : null;
    if (job === null || !claimOffer(link.claim, HELPER_RANGE_TAKEN)) return;
    port.postMessage(replyOf(() => build(job, stopAsked)));
  } finally {
    port.close();
  }
}

/** The next message on `port`; `{ job: null }` when the other end closes first. */
async function nextMessage<M>(port: MessagePort): Promise<M> {
  const [message] = (await Promise.race([once(port, "message"), once(port, "close").then(() => [{ job: null }])])) as [M];
  return message;
}
