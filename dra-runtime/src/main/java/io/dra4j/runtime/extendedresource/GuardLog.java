package io.dra4j.runtime.extendedresource;

import io.dra4j.api.device.Quantity;
import io.dra4j.runtime.extendedresource.ExtendedResourceGuard.Policy;
import io.dra4j.runtime.extendedresource.GuardReport.Conflict;
import io.dra4j.runtime.extendedresource.GuardReport.DeviceRef;
import io.dra4j.runtime.extendedresource.GuardReport.Duplicate;
import io.dra4j.runtime.extendedresource.GuardReport.NameStatus;
import io.dra4j.runtime.extendedresource.GuardReport.Phase;
import io.dra4j.runtime.extendedresource.GuardReport.UnusableName;
import io.dra4j.runtime.internal.extendedresource.GuardEvaluator.Evaluation;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * What an {@link ExtendedResourceGuard} says: what changed between two evaluations, in the words of
 * its policy, and an ongoing conflict again every log interval. Called with the guard's lock held;
 * the reminders run on the guard's executor and take that lock ({@code remind}).
 */
final class GuardLog {
  // The guard's one log category, whichever of its parts logs.
  private static final Logger LOG = LoggerFactory.getLogger(ExtendedResourceGuard.class);

  /** How many device names a log line lists before it says "and N more". */
  private static final int LOGGED_DEVICES = 8;

  private final String driverName;
  private final String nodeName;
  private final Policy policy;
  private final Duration logInterval;
  private final Clock clock;
  private final ScheduledExecutorService executor;
  private final BiConsumer<Level, String> logTap;
  private final Runnable remind;

  private Instant lastConflictLog = Instant.MIN;
  private ScheduledFuture<?> reminder;
  private boolean closed;

  /**
   * @param remind the guard's {@code remind}, run by a reminder
   */
  GuardLog(ExtendedResourceGuard.Builder b, ScheduledExecutorService executor, Runnable remind) {
    this.driverName = b.driverName;
    this.nodeName = b.nodeName;
    this.policy = b.policy;
    this.logInterval = b.logInterval;
    this.clock = b.clock;
    this.logTap = b.logTap;
    this.executor = executor;
    this.remind = remind;
  }

  void log(Level level, String message) {
    String line = "driver=" + driverName + " node=" + nodeName + ": " + message;
    LOG.atLevel(level).log(line);
    logTap.accept(level, line);
  }

  /** Logs what is new in {@code after} besides its conflicts: duplicates, problems, phases. */
  void changes(Evaluation before, Evaluation after) {
    if (!after.duplicates().equals(before.duplicates())) {
      for (Duplicate d : after.duplicates()) {
        log(
            Level.WARN,
            "extended resource "
                + d.resourceName()
                + " is mapped by "
                + (d.ignored().size() + 1)
                + " DeviceClasses: the scheduler uses "
                + d.winner()
                + " (newest; on equal creation times the first name) and ignores "
                + String.join(", ", d.ignored()));
      }
    }
    if (!after.unusable().equals(before.unusable())) {
      for (UnusableName u : after.unusable()) {
        log(
            Level.WARN,
            "DeviceClass "
                + u.deviceClass()
                + " selects devices of this driver, but its implicit extended resource name "
                + u.resourceName()
                + " cannot be requested: "
                + u.reason()
                + "; set spec.extendedResourceName if pods should request it");
      }
    }
    if (!after.problems().equals(before.problems())) {
      for (String p : after.problems()) {
        log(Level.WARN, p);
      }
    }
    phaseChanges(before, after);
  }

  /** One INFO line per name whose phase changed (or that appeared), in the phases' own words. */
  private void phaseChanges(Evaluation before, Evaluation after) {
    Map<String, Phase> was = new HashMap<>();
    for (NameStatus n : before.names()) {
      was.put(n.resourceName(), n.phase());
    }
    for (NameStatus n : after.names()) {
      if (was.get(n.resourceName()) == n.phase()) {
        continue;
      }
      String what =
          switch (n.phase()) {
            case DEVICE_PLUGIN ->
                "a device plugin serves it: the scheduler sends pods asking for it to the plugin";
            case PLUGIN_STOPPED ->
                "allocatable is 0, so the scheduler sends pods asking for it to DRA; the kubelet"
                    + " still counts the device plugin's devices in capacity (a plugin stopped"
                    + " less than 5 minutes ago, the kubelet's endpointStopGracePeriod, or one"
                    + " whose devices are all unhealthy)";
            case DRA -> "no device plugin serves it here: DRA does";
          };
      log(
          Level.INFO,
          "extended resource "
              + n.resourceName()
              + " (DeviceClass "
              + n.deviceClass()
              + "): phase "
              + n.phase().json()
              + values(n.capacity(), n.allocatable())
              + ": "
              + what);
    }
  }

  /** " (capacity C, allocatable A)", as the Node's status has them. */
  private static String values(Optional<Quantity> capacity, Optional<Quantity> allocatable) {
    return " (capacity "
        + capacity.map(Quantity::toString).orElse("absent")
        + ", allocatable "
        + allocatable.map(Quantity::toString).orElse("absent")
        + ")";
  }

  /** The conflicts cleared. */
  void cleared(Optional<Instant> waitingSince) {
    log(
        Level.INFO,
        policy == Policy.WAIT
            ? "no extended resource conflict any more: publishing the devices held back since "
                + waitingSince.map(Instant::toString).orElse("start")
            : "no extended resource conflict any more");
    cancelReminder();
  }

  /**
   * Loudly, for a name that became allocatable again while devices of its class are out: the node
   * now serves it both ways until this driver's devices are withdrawn (wait, fail) or for as long
   * as both run (warn). Claims already allocated keep their devices either way.
   *
   * @param letThrough the devices out in the slices now
   */
  void returns(Evaluation before, Evaluation after, Set<DeviceRef> letThrough) {
    Set<String> old = new HashSet<>();
    for (Conflict c : before.conflicts()) {
      old.add(c.resourceName());
    }
    for (Conflict c : after.conflicts()) {
      long out = c.affectedDevices().stream().filter(letThrough::contains).count();
      if (old.contains(c.resourceName()) || out == 0) {
        continue;
      }
      String action =
          switch (policy) {
            case WAIT -> "withdrawing them from the ResourceSlices now";
            case WARN -> "publishing them anyway (policy warn)";
            case FAIL -> "stopping the driver (policy fail)";
          };
      log(
          Level.ERROR,
          "extended resource "
              + c.resourceName()
              + " is allocatable on node "
              + nodeName
              + " again"
              + values(c.capacity(), c.allocatable())
              + " while "
              + out
              + " device(s) of DeviceClass "
              + String.join(", ", c.deviceClasses())
              + " are published: a device plugin serves it beside this driver; "
              + action
              + ". Pods that got these devices through DRA keep them, and new pods asking for "
              + c.resourceName()
              + " go to the device plugin, which may hand out the same hardware: drain the node"
              + " and remove either the device plugin or this driver");
    }
  }

  /** The reason of the fatal error under {@link Policy#FAIL}. */
  String fatalReason(List<Conflict> conflicts) {
    return "driver "
        + driverName
        + ": "
        + conflicts.stream().map(Conflict::describe).collect(Collectors.joining("; "))
        + " (--extended-resource-conflict=fail)";
  }

  /** Logs the conflicts at {@code now} and schedules the next reminder. */
  void conflicts(List<Conflict> conflicts, Optional<Instant> waitingSince, Instant now) {
    Level level = policy == Policy.FAIL ? Level.ERROR : Level.WARN;
    for (Conflict c : conflicts) {
      log(level, conflictLine(c, waitingSince));
    }
    lastConflictLog = now;
    scheduleReminder(logInterval);
  }

  private String conflictLine(Conflict c, Optional<Instant> waitingSince) {
    String devicesText =
        c.affectedDevices().stream()
                .limit(LOGGED_DEVICES)
                .map(DeviceRef::toString)
                .collect(Collectors.joining(", "))
            + (c.affectedDevices().size() > LOGGED_DEVICES
                ? " and " + (c.affectedDevices().size() - LOGGED_DEVICES) + " more"
                : "");
    return switch (policy) {
      case WAIT ->
          "waiting"
              + waitingSince.map(t -> " since " + t).orElse("")
              + ": "
              + c.describe()
              + ". Not publishing "
              + devicesText
              + " until the node's allocatable for "
              + c.resourceName()
              + " is 0, when the scheduler hands the name to DRA (remove the device plugin from"
              + " this node)";
      case WARN -> c.describe() + ". Publishing " + devicesText + " anyway (policy warn)";
      case FAIL -> c.describe() + " (policy fail)";
    };
  }

  /** Repeats the conflict log, at most once per log interval. */
  void remind(List<Conflict> conflicts, Optional<Instant> waitingSince) {
    reminder = null;
    if (closed || conflicts.isEmpty()) {
      return;
    }
    Instant now = clock.instant();
    Instant due = lastConflictLog.plus(logInterval);
    if (now.isBefore(due)) {
      scheduleReminder(Duration.between(now, due));
      return;
    }
    conflicts(conflicts, waitingSince, now);
  }

  private void scheduleReminder(Duration delay) {
    cancelReminder();
    if (closed || policy == Policy.FAIL) {
      return;
    }
    reminder = executor.schedule(remind, delay.toNanos(), TimeUnit.NANOSECONDS);
  }

  private void cancelReminder() {
    if (reminder != null) {
      reminder.cancel(false);
      reminder = null;
    }
  }

  /** No more reminders. */
  void close() {
    closed = true;
    if (reminder != null) {
      reminder.cancel(false);
    }
  }
}
