package io.dra4j.runtime.internal.health;

import io.dra4j.api.health.DeviceHealth;
import io.dra4j.api.health.HealthStatus;
import io.dra4j.runtime.internal.kubelet.DeviceHealthState;
import io.dra4j.runtime.internal.kubelet.HealthSnapshot;
import io.dra4j.runtime.report.HealthView;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The health state machine of every device, with time passed in: no clock, no threads, no I/O. Not
 * thread-safe; {@link HealthHub} guards it.
 *
 * <p>Per device:
 *
 * <ul>
 *   <li>UNHEALTHY: tainted at once (the taint's value follows the latest reason); a running
 *       recovery is cancelled.
 *   <li>HEALTHY while tainted: the recovery starts, unless it is already running (repeated healthy
 *       reports do not postpone it); the taint is lifted once the device has been healthy for the
 *       recovery delay.
 *   <li>UNKNOWN: never taints on its own (missing information is not a fault, and tainting every
 *       device of a driver that just started would block the node); a tainted device stays tainted
 *       and its recovery is cancelled, since nobody knows it recovered.
 * </ul>
 */
final class HealthLedger {

  /** The kubelet keeps at most this many characters of a health message. */
  static final int MAX_MESSAGE_CHARS = 1024;

  record Key(String pool, String device) {
    @Override
    public String toString() {
      return pool + "/" + device;
    }
  }

  /** What a change affected: the stream's content and/or the taint overlay. */
  record Change(boolean stream, boolean overlay) {
    static final Change NONE = new Change(false, false);

    Change or(Change other) {
      return new Change(stream || other.stream, overlay || other.overlay);
    }
  }

  /** A taint the overlay must carry. */
  record Taint(String value, Instant since) {}

  private static final class Entry {
    HealthStatus status = HealthStatus.UNKNOWN;
    String reason = "";
    String message = "";
    Instant since; // last status change, null before the first report
    Instant lastReport; // null before the first report
    boolean tainted;
    String taintValue = "";
    Instant taintedAt;
    Instant liftAt; // set while a tainted device is recovering
  }

  private final Duration recoveryDelay;
  private final Map<Key, Entry> entries = new HashMap<>();
  private List<Key> devices = List.of();

  HealthLedger(Duration recoveryDelay) {
    this.recoveryDelay = recoveryDelay;
  }

  /**
   * The device list the stream carries, in order. Entries of devices not in it are dropped: a
   * removed device vanishes, and comes back UNKNOWN and untainted.
   */
  Change setDevices(List<Key> keys) {
    List<Key> next = List.copyOf(new LinkedHashSet<>(keys));
    boolean changed = !next.equals(devices);
    devices = next;
    var known = new java.util.HashSet<>(next);
    var it = entries.entrySet().iterator();
    while (it.hasNext()) {
      var e = it.next();
      if (!known.contains(e.getKey())) {
        it.remove();
        changed = true;
      }
    }
    // A vanished device's taint needs no republish of its own: the device is gone from the pools.
    return new Change(changed, false);
  }

  /**
   * Applies reports in order. Reports of devices not (yet) in the device list are kept, so a report
   * that races ahead of the inventory is not lost; the next {@link #setDevices} drops them if the
   * device is still unknown then.
   */
  Change report(List<DeviceHealth> reports, Instant now) {
    boolean overlay = false;
    for (DeviceHealth h : reports) {
      Entry e = entries.computeIfAbsent(new Key(h.pool(), h.device()), k -> new Entry());
      if (e.status != h.status() || e.since == null) {
        e.since = now;
      }
      e.status = h.status();
      e.reason = h.reason();
      e.message = h.message();
      e.lastReport = now;
      switch (h.status()) {
        case UNHEALTHY -> {
          String value = LabelSyntax.toLabelValue(h.reason());
          if (!e.tainted) {
            e.tainted = true;
            e.taintedAt = now;
            overlay = true;
          } else if (!value.equals(e.taintValue)) {
            overlay = true;
          }
          e.taintValue = value;
          e.liftAt = null;
        }
        case HEALTHY -> {
          if (e.tainted && e.liftAt == null) {
            e.liftAt = now.plus(recoveryDelay);
          }
        }
        case UNKNOWN -> e.liftAt = null;
      }
    }
    return new Change(!reports.isEmpty(), overlay).or(liftDue(now));
  }

  /** Whether the report changes the device's status or reason (worth a log line). */
  boolean isNews(DeviceHealth h) {
    Entry e = entries.get(new Key(h.pool(), h.device()));
    return e == null || e.status != h.status() || !e.reason.equals(h.reason());
  }

  /** The device's last reported status, UNKNOWN when never reported. */
  HealthStatus statusOf(String pool, String device) {
    Entry e = entries.get(new Key(pool, device));
    return e == null ? HealthStatus.UNKNOWN : e.status;
  }

  /** Lifts the taint of every device whose recovery has run its full delay by {@code now}. */
  Change liftDue(Instant now) {
    boolean overlay = false;
    for (Entry e : entries.values()) {
      if (e.tainted && e.liftAt != null && !e.liftAt.isAfter(now)) {
        e.tainted = false;
        e.taintValue = "";
        e.taintedAt = null;
        e.liftAt = null;
        overlay = true;
      }
    }
    return new Change(false, overlay);
  }

  /** When the next recovery completes, if any is running. */
  Optional<Instant> nextLift() {
    Instant next = null;
    for (Entry e : entries.values()) {
      if (e.tainted && e.liftAt != null && (next == null || e.liftAt.isBefore(next))) {
        next = e.liftAt;
      }
    }
    return Optional.ofNullable(next);
  }

  /** The taints the overlay must carry now. */
  Map<Key, Taint> taints() {
    Map<Key, Taint> out = new HashMap<>();
    entries.forEach(
        (k, e) -> {
          if (e.tainted) {
            out.put(k, new Taint(e.taintValue, e.taintedAt));
          }
        });
    return out;
  }

  /**
   * The stream message: every device of the list, UNKNOWN when never reported, with the time of its
   * last report (Unix seconds, 0 when none).
   */
  HealthSnapshot snapshot(long timeoutSeconds) {
    List<DeviceHealthState> out = new ArrayList<>(devices.size());
    for (Key k : devices) {
      Entry e = entries.get(k);
      if (e == null) {
        out.add(
            new DeviceHealthState(
                k.pool(), k.device(), HealthStatus.UNKNOWN, 0, "", timeoutSeconds));
        continue;
      }
      String text = e.message.isEmpty() ? e.reason : e.message;
      out.add(
          new DeviceHealthState(
              k.pool(),
              k.device(),
              e.status,
              e.lastReport == null ? 0 : e.lastReport.getEpochSecond(),
              truncate(text),
              timeoutSeconds));
    }
    return new HealthSnapshot(out);
  }

  /** Every device of the list, then devices reported but not (yet) listed. */
  List<HealthView.DeviceState> view() {
    List<HealthView.DeviceState> out = new ArrayList<>();
    var listed = new java.util.HashSet<>(devices);
    for (Key k : devices) {
      out.add(state(k, entries.get(k), true));
    }
    entries.keySet().stream()
        .filter(k -> !listed.contains(k))
        .sorted(java.util.Comparator.comparing(Key::pool).thenComparing(Key::device))
        .forEach(k -> out.add(state(k, entries.get(k), false)));
    return out;
  }

  private static HealthView.DeviceState state(Key k, Entry e, boolean listed) {
    if (e == null) {
      return new HealthView.DeviceState(
          k.pool(),
          k.device(),
          listed,
          HealthStatus.UNKNOWN,
          "",
          "",
          Optional.empty(),
          Optional.empty(),
          false,
          "",
          Optional.empty(),
          Optional.empty());
    }
    return new HealthView.DeviceState(
        k.pool(),
        k.device(),
        listed,
        e.status,
        e.reason,
        e.message,
        Optional.ofNullable(e.since),
        Optional.ofNullable(e.lastReport),
        e.tainted,
        e.taintValue,
        Optional.ofNullable(e.taintedAt),
        Optional.ofNullable(e.liftAt));
  }

  /**
   * At most {@value #MAX_MESSAGE_CHARS} characters (code points, so a surrogate pair is never
   * split): the first 1021 and {@code ...}. The kubelet's server cuts the same way; cutting here
   * keeps the stream within the limit whatever the transport does.
   */
  static String truncate(String message) {
    if (message.length() <= MAX_MESSAGE_CHARS
        || message.codePointCount(0, message.length()) <= MAX_MESSAGE_CHARS) {
      return message;
    }
    int end = message.offsetByCodePoints(0, MAX_MESSAGE_CHARS - 3);
    return message.substring(0, end) + "...";
  }
}
