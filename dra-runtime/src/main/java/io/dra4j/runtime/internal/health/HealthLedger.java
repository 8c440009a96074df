package io.dra4j.runtime.internal.health;

import io.dra4j.api.health.DeviceHealth;
import io.dra4j.api.health.HealthStatus;
import io.dra4j.runtime.internal.kubelet.DeviceHealthState;
import io.dra4j.runtime.internal.kubelet.HealthProto;
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

  record Key(String pool, String device) {
    @Override
    public String toString() {
      return pool + "/" + device;
    }
  }

  /** What a change did to the taint overlay. */
  record Change(boolean overlay) {
    Change or(Change other) {
      return new Change(overlay || other.overlay);
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
    Optional<Instant> lastUpdated = Optional.empty(); // the provider's own time of the last report
    Optional<Duration> timeout = Optional.empty(); // the last report's health check timeout
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
   * The driver's device list, in order (for the taints and the view). Entries of devices not in it
   * are dropped: a removed device vanishes, and comes back UNKNOWN and untainted.
   */
  void setDevices(List<Key> keys) {
    devices = List.copyOf(new LinkedHashSet<>(keys));
    // A vanished device's taint needs no republish of its own: the device is gone from the pools.
    entries.keySet().retainAll(new java.util.HashSet<>(devices));
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
      e.lastUpdated = h.lastUpdated();
      e.timeout = h.healthCheckTimeout();
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
    return new Change(overlay).or(liftDue(now));
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
    return new Change(overlay);
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
   * The stream message of one report: exactly the devices it names, with the provider's own time
   * (else the time of receipt) and timeout (0, the kubelet's default, when it set none), as the Go
   * helper converts a report ({@code kubeletplugin/health.go:204-219}). Devices not named keep what
   * the kubelet last heard of them until their timeout passes.
   */
  static HealthSnapshot message(List<DeviceHealth> reports, Instant now) {
    List<DeviceHealthState> out = new ArrayList<>(reports.size());
    for (DeviceHealth h : reports) {
      out.add(
          new DeviceHealthState(
              h.pool(),
              h.device(),
              h.status(),
              h.lastUpdated().orElse(now).getEpochSecond(),
              text(h.reason(), h.message()),
              h.healthCheckTimeout().map(Duration::getSeconds).orElse(0L)));
    }
    return new HealthSnapshot(out);
  }

  /**
   * What a new stream starts with: every device whose last report is still within its timeout, with
   * the rest of that timeout (whole seconds, at least 1) as the timeout. The kubelet trusts an
   * observation from the time it receives it ({@code healthinfo.go:192}), so sending the original
   * timeout again would vouch for the device longer than its provider did; devices with less than a
   * second left are not sent.
   */
  HealthSnapshot replay(Instant now) {
    List<DeviceHealthState> out = new ArrayList<>();
    for (Map.Entry<Key, Entry> kv : entries.entrySet()) {
      Entry e = kv.getValue();
      if (e.lastReport == null) {
        continue;
      }
      long left = remaining(e, now).getSeconds();
      if (left < 1) {
        continue;
      }
      out.add(
          new DeviceHealthState(
              kv.getKey().pool(),
              kv.getKey().device(),
              e.status,
              e.lastUpdated.orElse(e.lastReport).getEpochSecond(),
              text(e.reason, e.message),
              left));
    }
    out.sort(
        java.util.Comparator.comparing(DeviceHealthState::pool)
            .thenComparing(DeviceHealthState::device));
    return new HealthSnapshot(out);
  }

  /** How long the kubelet still trusts the device's last report; negative once it is stale. */
  private static Duration remaining(Entry e, Instant now) {
    Duration timeout = e.timeout.orElse(DeviceHealth.KUBELET_DEFAULT_HEALTH_CHECK_TIMEOUT);
    return timeout.minus(Duration.between(e.lastReport, now));
  }

  /**
   * The message for people: the provider's message, else its reason, cut to the kubelet's limit.
   */
  private static String text(String reason, String message) {
    return HealthProto.truncate(message.isEmpty() ? reason : message);
  }

  /** Every device of the list, then devices reported but not (yet) listed, as of {@code now}. */
  List<HealthView.DeviceState> view(Instant now) {
    List<HealthView.DeviceState> out = new ArrayList<>();
    var listed = new java.util.HashSet<>(devices);
    for (Key k : devices) {
      out.add(state(k, entries.get(k), true, now));
    }
    entries.keySet().stream()
        .filter(k -> !listed.contains(k))
        .sorted(java.util.Comparator.comparing(Key::pool).thenComparing(Key::device))
        .forEach(k -> out.add(state(k, entries.get(k), false, now)));
    return out;
  }

  private static HealthView.DeviceState state(Key k, Entry e, boolean listed, Instant now) {
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
          Optional.empty(),
          DeviceHealth.KUBELET_DEFAULT_HEALTH_CHECK_TIMEOUT,
          true);
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
        Optional.ofNullable(e.liftAt),
        e.timeout.orElse(DeviceHealth.KUBELET_DEFAULT_HEALTH_CHECK_TIMEOUT),
        e.lastReport == null || remaining(e, now).isNegative());
  }
}
