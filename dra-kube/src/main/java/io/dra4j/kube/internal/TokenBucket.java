package io.dra4j.kube.internal;

/**
 * Client-side rate limit like client-go's: {@code qps} tokens per second, at most {@code burst}
 * stored. A call that would have to wait past its deadline fails at once instead of sleeping.
 */
public final class TokenBucket {
  private final double qps;
  private final double burst;
  private double tokens;
  private long last;
  private long throttled;

  public TokenBucket(double qps, int burst) {
    if (qps <= 0 || burst < 1) {
      throw new IllegalArgumentException("rate limit needs qps > 0 and burst >= 1");
    }
    this.qps = qps;
    this.burst = burst;
    this.tokens = burst;
    this.last = System.nanoTime();
  }

  /**
   * Takes one token, waiting if needed.
   *
   * @return the nanoseconds waited (0 when a token was there), or -1 when the wait would end after
   *     {@code deadlineNanos} (nothing is taken then)
   */
  public long acquire(long deadlineNanos) throws InterruptedException {
    long waitNanos;
    synchronized (this) {
      long now = System.nanoTime();
      tokens = Math.min(burst, tokens + (now - last) * qps / 1e9);
      last = now;
      if (tokens >= 1) {
        tokens -= 1;
        return 0;
      }
      waitNanos = (long) Math.ceil((1 - tokens) / qps * 1e9);
      if (now + waitNanos - deadlineNanos > 0) {
        return -1;
      }
      // Reserve the token now so concurrent callers queue up behind this one.
      tokens -= 1;
      throttled++;
    }
    Thread.sleep(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
    return waitNanos;
  }

  public synchronized long throttled() {
    return throttled;
  }
}
