package io.dra4j.runtime.claims;

import io.dra4j.runtime.kubelet.SerializationLock;
import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Holds the driver's serialization lock (in a rolling update, the cross-process file lock) while
 * any prepare or unprepare of this process runs, and releases it when the last one leaves: inside
 * the process calls overlap freely, across processes they never do. A keeper thread takes and
 * releases the lock, because the lock belongs to the thread that acquired it.
 *
 * <p>{@code onAcquire} runs on the keeper thread each time the lock is newly taken, before any
 * caller proceeds: the place to notice that another process held the lock meanwhile.
 */
final class ProcessGate implements AutoCloseable {

  /** Work done right after the lock is taken. */
  @FunctionalInterface
  interface OnAcquire {
    void run() throws IOException;
  }

  private final ExecutorService keeper =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "dra4j-claims-lock-keeper");
            t.setDaemon(true);
            return t;
          });
  private final OnAcquire onAcquire;
  private int active;
  private Future<?> acquired;
  // Touched only on the keeper thread.
  private SerializationLock.Held held;

  ProcessGate(OnAcquire onAcquire) {
    this.onAcquire = onAcquire;
  }

  /** A pass through the gate; close it to leave. */
  interface Pass extends AutoCloseable {
    @Override
    void close();
  }

  /** Waits until this process holds {@code lock}, then lets the caller in. */
  Pass enter(SerializationLock lock) throws IOException, InterruptedException {
    Future<?> f;
    synchronized (this) {
      if (active++ == 0) {
        acquired =
            keeper.submit(
                () -> {
                  held = lock.acquire();
                  try {
                    onAcquire.run();
                  } catch (IOException | RuntimeException e) {
                    held.close();
                    held = null;
                    throw e;
                  }
                  return null;
                });
      }
      f = acquired;
    }
    try {
      f.get();
    } catch (ExecutionException e) {
      leave();
      Throwable c = e.getCause();
      if (c instanceof IOException io) {
        throw io;
      }
      if (c instanceof InterruptedException ie) {
        throw ie;
      }
      if (c instanceof RuntimeException re) {
        throw re;
      }
      throw new IOException("cannot take the serialization lock: " + c, c);
    } catch (InterruptedException e) {
      leave();
      throw e;
    }
    return this::leave;
  }

  private synchronized void leave() {
    if (--active == 0) {
      keeper.submit(
          () -> {
            if (held != null) {
              held.close();
              held = null;
            }
          });
    }
  }

  @Override
  public void close() {
    keeper.shutdown();
  }
}
