package io.dra4j.runtime.internal;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The one thread policy of the runtime's background work: daemon threads (a driver's JVM ends when
 * its launcher's main thread does, never held by a forgotten executor), named {@code dra4j-...} so
 * a thread dump tells them apart.
 */
public final class Threads {
  private Threads() {}

  /**
   * One daemon thread that runs tasks in order, now or later; a cancelled task leaves the queue at
   * once (the default keeps it until its time, a leak for long delays cancelled often).
   */
  public static ScheduledExecutorService single(String name) {
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> daemon(r, name));
    executor.setRemoveOnCancelPolicy(true);
    return executor;
  }

  /** A daemon thread, not started. */
  public static Thread daemon(Runnable task, String name) {
    Thread t = new Thread(task, name);
    t.setDaemon(true);
    return t;
  }
}
