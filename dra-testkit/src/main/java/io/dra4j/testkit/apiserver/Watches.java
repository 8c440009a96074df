package io.dra4j.testkit.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * The watch side of the store: a bounded history of events, as etcd keeps one, and the open watches
 * each event is offered to. The store calls it under its lock, so that no write falls between a
 * watch's initial events and the events after them.
 */
final class Watches {
  private final ObjectMapper json;
  private final int historyLimit;
  private final ArrayDeque<Event> history = new ArrayDeque<>();
  private final List<Watcher> watchers = new CopyOnWriteArrayList<>();
  private long compactedRv;

  Watches(ObjectMapper json, int historyLimit) {
    this.json = json;
    this.historyLimit = historyLimit;
  }

  /** One change of a stored object. */
  record Event(ResourceDef def, String type, ObjectNode oldObj, ObjectNode newObj, long rv) {}

  void record(Event e) {
    history.addLast(e);
    while (history.size() > historyLimit) {
      compactedRv = history.removeFirst().rv();
    }
    for (Watcher w : watchers) {
      w.offer(e);
    }
  }

  /**
   * Opens a watch. With {@code initialEvents} (a streaming list, {@code sendInitialEvents=true},
   * which client-go's informers use since 1.35) the stream starts with the current objects and a
   * bookmark marking their end, whatever {@code fromRv} says: the real server then serves a state
   * at least as new as {@code fromRv}, and this one always serves the newest.
   *
   * @param fromRv empty or "0": synthetic ADDED events for what exists now; otherwise every event
   *     after that version, or 410 Expired when the history no longer reaches back that far
   * @param current the stored objects the watch selects, for its initial events
   * @param rv the store's resourceVersion now
   */
  Watcher open(
      ResourceDef def,
      String ns,
      Predicate<JsonNode> filter,
      String fromRv,
      boolean bookmarks,
      boolean initialEvents,
      Collection<ObjectNode> current,
      long rv)
      throws ApiError {
    Watcher w = new Watcher(def, ns, filter, bookmarks, json);
    if (initialEvents) {
      current.forEach(o -> w.send("ADDED", o));
      w.initialEventsEnd(rv);
    } else if (fromRv.isEmpty() || fromRv.equals("0")) {
      current.forEach(o -> w.send("ADDED", o));
    } else {
      long from;
      try {
        from = Long.parseLong(fromRv);
      } catch (NumberFormatException e) {
        throw ApiError.badRequest("invalid resourceVersion \"" + fromRv + "\"");
      }
      if (from < compactedRv) {
        w.expire("too old resource version: " + from + " (" + (compactedRv + 1) + ")");
        return w;
      }
      for (Event e : history) {
        if (e.rv() > from) {
          w.offer(e);
        }
      }
    }
    watchers.add(w);
    return w;
  }

  void bookmark(long rv) {
    for (Watcher w : watchers) {
      w.bookmark(rv);
    }
  }

  void unregister(Watcher w) {
    watchers.remove(w);
  }

  /** Ends every open watch stream (cleanly, as a server timeout would). */
  void endWatches() {
    for (Watcher w : watchers) {
      w.end();
      watchers.remove(w);
    }
  }

  int openWatches() {
    return watchers.size();
  }
}
