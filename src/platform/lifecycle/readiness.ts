/**
 * Whether this process should get new traffic. It turns false the moment a
 * shutdown starts, so the load balancer's next readiness probe takes the
 * replica out before its connections close.
 */
export class Readiness {
  private draining = false;

  get shuttingDown(): boolean {
    return this.draining;
  }

  startShutdown(): void {
    this.draining = true;
  }
}
