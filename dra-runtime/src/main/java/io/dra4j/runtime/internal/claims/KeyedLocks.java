package io.dra4j.runtime.internal.claims;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One mutex per claim UID, created on demand and dropped when unused: two calls for the same claim
 * (a prepare racing an unprepare, or a repeated prepare) never overlap, calls for different claims
 * do.
 */
final class KeyedLocks {

  /** A held lock; close releases it. */
  interface Held extends AutoCloseable {
    @Override
    void close();
  }

  private static final class Entry {
    final ReentrantLock lock = new ReentrantLock();
    int users;
  }

  private final Map<String, Entry> entries = new HashMap<>();

  Held lock(String key) throws InterruptedException {
    Entry e;
    synchronized (entries) {
      e = entries.computeIfAbsent(key, k -> new Entry());
      e.users++;
    }
    try {
      e.lock.lockInterruptibly();
    } catch (InterruptedException ie) {
      drop(key, e);
      throw ie;
    }
    Entry held = e;
    return () -> {
      held.lock.unlock();
      drop(key, held);
    };
  }

  private void drop(String key, Entry e) {
    synchronized (entries) {
      if (--e.users == 0) {
        entries.remove(key, e);
      }
    }
  }
}
