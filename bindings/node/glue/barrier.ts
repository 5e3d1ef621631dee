// The readiness barrier (SES-3..6, SES-11): armed when the instance is
// built, re-armed by each session_start unless a turn is parked on it, and
// released by the session_start invocation that owns it. It never rejects.
import { sleep } from "./host.ts";

export class ReadinessBarrier {
  private resolver = () => {};
  private promise = this.arm();
  private settled = false;
  private parked = 0;
  /** The newest session_start invocation; only it may release the promise. */
  private newest = 0;

  private arm(): Promise<void> {
    this.settled = false;
    return new Promise<void>((resolve) => {
      this.resolver = resolve;
    });
  }

  /** True while a turn waits on the current, unsettled promise (SES-4). */
  get hasParkedTurn(): boolean {
    return this.parked > 0 && !this.settled;
  }

  /** SES-4/5: session_start begins; returns the resolver it must call on every exit path. */
  beginSession(): () => void {
    if (!this.hasParkedTurn) this.promise = this.arm();
    const [resolve, promise, invocation] = [this.resolver, this.promise, ++this.newest];
    return () => {
      // SES-5: an adopted promise (SES-4) belongs to the newest invocation;
      // an older one that settles first (superseded by the newer start) must
      // not release the turn parked for the newer session.
      if (promise === this.promise && invocation !== this.newest) return;
      resolve();
      if (promise === this.promise) this.settled = true;
    };
  }

  /** SES-11: true when session_start finished before the core's cap. */
  async wait(capMs: number): Promise<boolean> {
    if (this.settled) return true;
    this.parked += 1;
    try {
      return await Promise.race([this.promise.then(() => true), sleep(capMs).then(() => false)]);
    } finally {
      this.parked -= 1;
    }
  }
}
