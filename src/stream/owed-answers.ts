/**
 * What waits for the fan-out under way (live.md §13; decision 006): a stream
 * that opens during it starts at its end, at the position it brought; a
 * started connection's topic change and the answers after it wait too, so the
 * connection keeps the topics it held through every event of the publications
 * being sent, then holds its new ones and gets its `subscribed` answers at the
 * position they were all sent at (nothing is missed nor sent twice). Answers
 * after a waiting one wait too, in order.
 */
import type { StreamConnection } from "./stream-connection.js";

export class OwedAnswers {
  /** Streams whose transport opened while they had to wait: started between publications. */
  private readonly unstarted: StreamConnection[] = [];
  /** Started connections with answers waiting. */
  private readonly owing = new Set<StreamConnection>();

  /** The stream starts once the fan-out under way is out (or the published mark has come). */
  startLater(conn: StreamConnection): void {
    this.unstarted.push(conn);
  }

  /**
   * Whether `answer` must wait, and then queues it: the connection has not started, answers of it wait
   * already, or a fan-out is under way (`busy`).
   */
  owe(conn: StreamConnection, answer: () => void, busy: boolean): boolean {
    const started = conn.phase === "open";
    if (conn.owed === null && started && !busy) return false;
    (conn.owed ??= []).push(answer);
    if (started) this.owing.add(conn);
    return true;
  }

  /** What waited for the connection goes (it closed, or is revoked). */
  forget(conn: StreamConnection): void {
    conn.owed = null;
    this.owing.delete(conn);
  }

  /** Between publications: streams that waited `start`; started connections with answers waiting are `pay`d. */
  settle(start: (conn: StreamConnection) => void, pay: (conn: StreamConnection) => void): void {
    if (this.unstarted.length > 0) for (const conn of this.unstarted.splice(0)) if (conn.phase === "waiting") start(conn);
    if (this.owing.size === 0) return;
    const owing = [...this.owing];
    this.owing.clear();
    for (const conn of owing) pay(conn);
  }
}
