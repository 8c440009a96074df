package io.dra4j.kube;

/** A running watch; closing it stops the stream without calling {@link WatchHandler#onClose}. */
public interface Watch extends AutoCloseable {
  @Override
  void close();
}
