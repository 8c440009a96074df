package io.dra4j.runtime.internal.claims;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.claim.RecordedDevice;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.api.provider.TypedConfig;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.kube.AllocatedDeviceStatus;
import io.dra4j.kube.ApplyOptions;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.internal.Failures;
import io.dra4j.runtime.cdi.CdiKind;
import io.dra4j.runtime.cdi.CdiSpecWriter;
import io.dra4j.runtime.cdi.ClaimSpec;
import io.dra4j.runtime.cdi.DeviceNodeCheck;
import io.dra4j.runtime.errors.DriverError;
import io.dra4j.runtime.errors.DriverErrorHandler;
import io.dra4j.runtime.errors.MissingSettingException;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.runtime.internal.CrashPoints;
import io.dra4j.runtime.internal.checkpoint.BootId;
import io.dra4j.runtime.internal.checkpoint.CheckpointDevice;
import io.dra4j.runtime.internal.checkpoint.CheckpointException;
import io.dra4j.runtime.internal.checkpoint.CheckpointListing;
import io.dra4j.runtime.internal.checkpoint.CheckpointStore;
import io.dra4j.runtime.internal.checkpoint.ClaimCheckpoint;
import io.dra4j.runtime.internal.kubelet.ClaimPrepareResult;
import io.dra4j.runtime.internal.kubelet.KubeletDevice;
import io.dra4j.runtime.internal.kubelet.NodeCall;
import io.dra4j.runtime.internal.kubelet.NodeService;
import io.dra4j.runtime.report.ClaimStats;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The claim preparation pipeline: the {@link NodeService} behind the kubelet's {@code
 * NodePrepareResources} and {@code NodeUnprepareResources}, for any {@link DeviceProvider}.
 *
 * <h2>Prepare</h2>
 *
 * Before the serialization lock, like the Go helper: each ResourceClaim is read, its UID and
 * allocation checked, this driver's results kept and their opaque configs decoded strictly. Then,
 * per claim in the kubelet's order: a completed checkpoint record of this boot answers a repeated
 * prepare without calling the provider (its claim status is applied again); an interrupted or
 * outdated record is rolled back first; the overlap guard reserves the devices; a PrepareStarted
 * record is written; the provider prepares; the CDI spec (and device metadata) is written; a
 * PrepareCompleted record is written. After the serialization lock, under each claim's own, the
 * claim status is applied: the API server's round trip holds up no other claim. A failure of one
 * claim never fails another.
 *
 * <h2>Unprepare</h2>
 *
 * Needs no API server (the claim may be gone): the checkpoint record says what to release. A claim
 * without a record succeeds without a provider call.
 *
 * <h2>Concurrency</h2>
 *
 * The driver's {@link ClaimSerializer} decides which calls run at once: one at a time for a
 * provider that is not {@link DeviceProvider#threadSafe() thread-safe}, in parallel (one at a time
 * per claim) for one that is, and in a rolling update never interleaved with the other driver
 * process. The overlap guard is one atomic index, so it stays exact either way. When another
 * process held the lock in between (noticed through an owner file in the plugin data directory),
 * the index is rebuilt from the checkpoint records.
 */
public final class ClaimPreparer implements NodeService {

  private static final Logger DEFAULT_LOG = LoggerFactory.getLogger(ClaimPreparer.class);

  /** Where this pipeline logs; the driver's warm-up runs a silent one. */
  private final Logger log;

  /**
   * Key prefix of a device's recorded map that providers may not use: checkpoint format 1 kept the
   * runtime's own values there, and reading such a record must not mistake a provider's for them.
   */
  static final String RESERVED_PREFIX = "dra4j.io/";

  /** The file naming the process that last held the serialization lock. */
  static final String OWNER_FILE = "claims.owner";

  static final String POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name";

  private final String driver;
  private final DeviceProvider provider;
  private final ClaimSource source;
  private final Optional<KubeClient> kubeClient;
  private final Path pluginDataDirectory;
  private final CheckpointStore store;
  private final CdiSpecWriter cdi;
  private final Optional<DeviceMetadataFiles> metadata;
  private final DeviceLookup lookup;
  private final Clock clock;
  private final ClaimListener listener;
  private final DriverErrorHandler errorHandler;
  private final OpaqueConfigs configs;
  private final ClaimSerializer serializer;
  private final DeviceIndex index = new DeviceIndex();
  private final String ownerToken = UUID.randomUUID().toString();
  private final Path ownerFile;

  private final AtomicLong prepared = new AtomicLong();
  private final AtomicLong repeated = new AtomicLong();
  private final AtomicLong prepareFailures = new AtomicLong();
  private final AtomicLong unprepared = new AtomicLong();
  private final AtomicLong unprepareFailures = new AtomicLong();
  private final AtomicLong rolledBack = new AtomicLong();
  private final AtomicLong inFlight = new AtomicLong();

  private ClaimPreparer(Builder b, CheckpointStore store) {
    this.log = b.logger;
    this.driver = b.driverName;
    this.provider = b.provider;
    this.source = b.claimSource;
    this.kubeClient = Optional.ofNullable(b.kubeClient);
    this.pluginDataDirectory = b.pluginDataDirectory;
    this.store = store;
    CdiKind kind = b.cdiKind != null ? b.cdiKind : CdiKind.forDriver(driver);
    this.cdi = new CdiSpecWriter(b.cdiDirectory, kind, new DeviceNodeCheck(b.devRoot));
    this.metadata =
        b.deviceMetadata
            ? Optional.of(new DeviceMetadataFiles(driver, b.pluginDataDirectory, b.cdiDirectory))
            : Optional.empty();
    this.lookup = b.lookup;
    this.clock = b.clock;
    this.listener = b.listener;
    this.errorHandler = b.errorHandler;
    this.configs =
        new OpaqueConfigs(
            driver,
            provider instanceof TypedConfig t ? Optional.of(t) : Optional.<TypedConfig>empty());
    this.serializer =
        b.serializer != null
            ? b.serializer
            : ClaimSerializer.forDriver(provider, b.pluginDataDirectory, Optional.empty());
    this.ownerFile = b.pluginDataDirectory.resolve(OWNER_FILE);
  }

  /** A builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** The driver this pipeline prepares for. */
  public String driverName() {
    return driver;
  }

  /** Counters for metrics. */
  public ClaimStats stats() {
    return new ClaimStats(
        prepared.get(),
        repeated.get(),
        prepareFailures.get(),
        unprepared.get(),
        unprepareFailures.get(),
        rolledBack.get(),
        index.claims(),
        inFlight.get());
  }

  // ------------------------------------------------------------------------------------------
  // Recovery

  /**
   * Startup: rolls back interrupted prepares (PrepareStarted records) and records of an earlier
   * boot, rebuilds the overlap guard from the remaining records and removes this driver's CDI specs
   * and metadata files that no record accounts for. Call it before serving.
   */
  @SuppressWarnings("try")
  public RecoveryReport recover() throws IOException {
    // Recovery rebuilds the index from the records anyway: nothing to do on taking the lock.
    try (ClaimSerializer.Pass alone = serializer.alone(ClaimSerializer.NOTHING)) {
      return recoverLocked();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the serialization lock", e);
    }
  }

  private RecoveryReport recoverLocked() throws IOException {
    store.removeInterruptedWrites();
    CheckpointListing listing = store.list();
    List<String> kept = new ArrayList<>();
    List<String> rolled = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    List<ClaimCheckpoint> remaining = new ArrayList<>();
    for (ClaimCheckpoint r : listing.records()) {
      boolean earlier = store.fromEarlierBoot(r);
      if (r.isCompleted() && !earlier) {
        kept.add(r.claim().uid());
        remaining.add(r);
        continue;
      }
      try (var mdc = mdc(r.claim())) {
        try {
          rollBack(
              r,
              earlier
                  ? "it was written before the host rebooted"
                  : "its prepare was" + " interrupted",
              earlier);
          rolled.add(r.claim().uid());
        } catch (ClaimException | IOException e) {
          failures.add(r.claim() + ": " + r.claim().unprefixed(Failures.describe(e)));
          remaining.add(r);
          reportError(
              "driver "
                  + driver
                  + " claim "
                  + r.claim()
                  + ": recovery could not roll it back (the record is kept and the rollback is"
                  + " tried again on the next prepare or start): "
                  + r.claim().unprefixed(Failures.describe(e)),
              e);
        }
      }
    }
    index.rebuild(remaining);
    CrashPoints.reach(CrashPoints.RECOVERY_BEFORE_ORPHANS);
    Set<String> keepUids = new HashSet<>();
    Set<String> keepNames = new HashSet<>();
    for (ClaimCheckpoint r : remaining) {
      keepUids.add(r.claim().uid());
      keepNames.add(r.claim().namespace() + "_" + r.claim().name());
    }
    listing.problems().forEach(p -> p.claimUid().ifPresent(keepUids::add));
    List<Path> removed = new ArrayList<>(cdi.removeOrphans(keepUids));
    if (metadata.isPresent()) {
      if (!listing.problems().isEmpty()) {
        // A record we cannot read may belong to any claim name: keep every metadata directory.
        keepNames.add("*");
      }
      removed.addAll(
          metadata.get().removeOrphans(keepUids, keepNames.contains("*") ? allNames() : keepNames));
    }
    writeOwner();
    RecoveryReport report = new RecoveryReport(kept, rolled, failures, removed, listing.problems());
    log.info(
        "driver {}: recovered {} prepared claims, rolled back {}, {} rollback failures, removed {}"
            + " orphan files, {} unreadable records",
        driver,
        kept.size(),
        rolled.size(),
        failures.size(),
        removed.size(),
        listing.problems().size());
    return report;
  }

  private Set<String> allNames() throws IOException {
    Set<String> names = new HashSet<>();
    Path root = pluginDataDirectory.resolve(DeviceMetadataFiles.DIRECTORY);
    if (Files.isDirectory(root)) {
      try (var s = Files.list(root)) {
        s.forEach(p -> names.add(p.getFileName().toString()));
      }
    }
    return names;
  }

  /** Called whenever this process newly holds the lock file (rolling update). */
  private void syncWithOtherProcesses() throws IOException {
    String owner;
    try {
      owner = Files.readString(ownerFile, StandardCharsets.UTF_8).trim();
    } catch (NoSuchFileException e) {
      owner = "";
    }
    if (owner.equals(ownerToken)) {
      return;
    }
    // Another driver process (a rolling update) held the lock since we last did: its prepares and
    // unprepares are in the records, not in our index.
    CheckpointListing listing = store.list();
    index.rebuild(listing.records());
    log.info(
        "driver {}: another driver process held the serialization lock; overlap guard rebuilt"
            + " from {} checkpoint records",
        driver,
        listing.records().size());
    writeOwner();
  }

  private void writeOwner() throws IOException {
    AtomicFiles.write(
        ownerFile,
        pluginDataDirectory.resolve("." + OWNER_FILE + ".tmp"),
        (ownerToken + "\n").getBytes(StandardCharsets.UTF_8),
        PosixFilePermissions.fromString("rw-------"));
  }

  // ------------------------------------------------------------------------------------------
  // Prepare

  @Override
  public Map<String, ClaimPrepareResult> prepare(List<ClaimRef> claims, NodeCall call)
      throws Exception {
    inFlight.addAndGet(claims.size());
    try {
      return prepareAll(claims, call);
    } finally {
      inFlight.addAndGet(-claims.size());
    }
  }

  private Map<String, ClaimPrepareResult> prepareAll(List<ClaimRef> claims, NodeCall call)
      throws Exception {
    long start = System.nanoTime();
    // Slow work first, without the lock: read and check every claim.
    Map<String, ClaimRead> read = new LinkedHashMap<>();
    for (ClaimRef ref : claims) {
      read.put(ref.uid(), read(ref));
    }
    Map<String, Outcome> outcomes = new LinkedHashMap<>();
    Map<String, Long> started = new HashMap<>();
    try (ClaimSerializer.Pass claimsPass = serializer.claims(claims)) {
      try (ClaimSerializer.Pass pass = enter(call)) {
        for (ClaimRef ref : claims) {
          ClaimRead r = read.get(ref.uid());
          started.put(ref.uid(), r instanceof Refused ? start : System.nanoTime());
          try (var mdc = mdc(ref)) {
            outcomes.put(
                ref.uid(),
                r instanceof Readable readable
                    ? prepareOne(readable.claim())
                    : Outcome.failed(((Refused) r).reason().getMessage()));
          }
        }
      }
      // The claim statuses go to the API server after the driver's lock, under each claim's own:
      // a round trip to the API server is no reason for another claim's prepare to wait.
      Map<String, ClaimPrepareResult> out = new LinkedHashMap<>();
      for (ClaimRef ref : claims) {
        try (var mdc = mdc(ref)) {
          Outcome outcome = outcomes.get(ref.uid());
          ClaimPrepareResult result = withStatus(ref, outcome);
          // A refused claim's time is the call's: reading it was all the work it cost.
          Duration took = Duration.ofNanos(System.nanoTime() - started.get(ref.uid()));
          boolean repeat = outcome.fromCheckpoint();
          if (result.isOk()) {
            (repeat ? repeated : prepared).incrementAndGet();
            log.info(
                "driver {} claim {}: prepared{} in {} ms: {}",
                driver,
                ref,
                repeat ? " (from the checkpoint)" : "",
                took.toMillis(),
                result.devices());
            notify(() -> listener.prepared(ref, took, repeat));
          } else {
            prepareFailures.incrementAndGet();
            log.warn(
                "driver {} claim {}: prepare failed: {}",
                driver,
                ref,
                ref.unprefixed(result.error().get()));
            String err = result.error().get();
            notify(() -> listener.prepareFailed(ref, err, took));
          }
          out.put(ref.uid(), result);
        }
      }
      return out;
    }
  }

  /** The outcome's result once the status it waits for is applied. */
  private ClaimPrepareResult withStatus(ClaimRef ref, Outcome outcome) {
    if (outcome.status().isEmpty()) {
      return outcome.result();
    }
    try {
      PendingStatus pending = outcome.status().get();
      applyStatus(pending.claim(), pending.record());
      CrashPoints.reach(CrashPoints.AFTER_STATUS);
      return outcome.result();
    } catch (ClaimException e) {
      return ClaimPrepareResult.failed(e.getMessage());
    } catch (RuntimeException e) {
      log.error(
          "driver {} claim {}: applying the claim status failed unexpectedly", driver, ref, e);
      return ClaimPrepareResult.failed(
          "claim " + ref + ": internal error (see the driver's log): " + Failures.describe(e));
    }
  }

  /** A claim as read before the lock: ready to prepare, or refused with the reason. */
  private sealed interface ClaimRead permits Readable, Refused {}

  private record Readable(ResolvedClaim claim) implements ClaimRead {}

  private record Refused(ClaimException reason) implements ClaimRead {}

  /**
   * What preparing one claim gave, whether its checkpoint record answered it, and the statuses
   * still to be applied (the result holds only once they are).
   */
  private record Outcome(
      ClaimPrepareResult result, boolean fromCheckpoint, Optional<PendingStatus> status) {
    static Outcome failed(String error) {
      return new Outcome(ClaimPrepareResult.failed(error), false, Optional.empty());
    }

    static Outcome prepared(ResolvedClaim claim, ClaimCheckpoint rec, boolean fromCheckpoint) {
      return new Outcome(
          ClaimPrepareResult.ok(toKubelet(rec)),
          fromCheckpoint,
          Optional.of(new PendingStatus(claim, rec)));
    }
  }

  /** A prepared claim whose device statuses, recorded in its checkpoint, are still to apply. */
  private record PendingStatus(ResolvedClaim claim, ClaimCheckpoint record) {}

  /**
   * Reads and checks one claim.
   *
   * @throws IOException when the API server cannot answer: nothing is wrong with the claim, and the
   *     whole call fails so that the kubelet retries it
   */
  private ClaimRead read(ClaimRef ref) throws IOException {
    ResourceClaim claim;
    try {
      claim = source.get(ref.namespace(), ref.name());
    } catch (KubeException e) {
      if (e.status() == 0 || e.status() >= 500 || e.status() == 429) {
        // The API server is unreachable or overloaded: nothing about this claim is wrong, fail the
        // call (UNAVAILABLE) and let the kubelet retry it whole.
        throw new IOException(
            "cannot read ResourceClaim " + ref + " for driver " + driver + ": " + e.getMessage(),
            e);
      }
      return new Refused(
          new ClaimException(
              "cannot read ResourceClaim "
                  + ref
                  + (e.isNotFound()
                      ? ": not found"
                      : ": HTTP " + e.status() + " " + e.getMessage()),
              e));
    }
    try {
      ResolvedClaim r = ResolvedClaim.resolve(ref, claim, driver, configs);
      if (claim.metadata().deletionTimestamp().isPresent()) {
        // The kubelet still prepares claims of running pods (e.g. after its restart) while the
        // claim waits for them to finish: refusing would break those pods.
        log.info(
            "driver {} claim {}: the claim is being deleted; preparing it anyway", driver, ref);
      }
      return new Readable(r);
    } catch (ClaimException e) {
      return new Refused(e);
    }
  }

  /** Prepares one claim up to its status, under the driver's lock and the claim's own. */
  private Outcome prepareOne(ResolvedClaim r) {
    ClaimRef ref = r.ref();
    try {
      Optional<ClaimCheckpoint> existing = readRecord(ref.uid());
      if (existing.isPresent()) {
        ClaimCheckpoint rec = existing.get();
        boolean earlier = store.fromEarlierBoot(rec);
        if (rec.isCompleted() && !earlier) {
          return Outcome.prepared(r, rec, true);
        }
        rollBack(
            rec,
            earlier ? "it was written before the host rebooted" : "its prepare was interrupted",
            earlier);
      }
      if (r.devices().isEmpty()) {
        log.info("driver {} claim {}: no device of this driver is allocated", driver, ref);
        return new Outcome(ClaimPrepareResult.ok(List.of()), false, Optional.empty());
      }
      Optional<String> conflict = index.reserve(ref, r.devices());
      if (conflict.isPresent()) {
        throw new ClaimException("claim " + ref + ": " + conflict.get());
      }
      return Outcome.prepared(r, prepareFresh(r), false);
    } catch (ClaimException e) {
      return Outcome.failed(e.getMessage());
    } catch (IOException e) {
      return Outcome.failed("claim " + ref + ": " + Failures.describe(e));
    } catch (RuntimeException e) {
      log.error("driver {} claim {}: prepare failed unexpectedly", driver, ref, e);
      return Outcome.failed(
          "claim " + ref + ": internal error (see the driver's log): " + Failures.describe(e));
    }
  }

  /** From reservation to the PrepareCompleted record; undoes its own work when a step fails. */
  private ClaimCheckpoint prepareFresh(ResolvedClaim r) throws ClaimException, IOException {
    ClaimRef ref = r.ref();
    ClaimCheckpoint started;
    try {
      started =
          ClaimCheckpoint.started(
              ref,
              driver,
              r.devices().stream().map(CheckpointDevice::allocated).toList(),
              store.bootId(),
              clock.instant());
      writeRecord(started);
    } catch (IOException | RuntimeException e) {
      index.release(ref.uid());
      throw e;
    }
    CrashPoints.reach(CrashPoints.AFTER_STARTED);
    List<PreparedDevice> devices;
    try {
      PrepareResult result = providerPrepare(r);
      if (result == null) {
        throw new DeviceException("the provider returned no result");
      }
      devices = match(r, result);
    } catch (DeviceException | RuntimeException e) {
      String msg =
          e instanceof DeviceException
              ? ref.unprefixed(String.valueOf(e.getMessage()))
              : "provider " + provider.name() + " failed: " + Failures.describe(e);
      if (e instanceof RuntimeException) {
        log.error("driver {} claim {}: provider.prepare threw", driver, ref, e);
      }
      throw undo(started, "claim " + ref + ": " + msg, e);
    }
    CrashPoints.reach(CrashPoints.AFTER_PROVIDER);
    ClaimSpec spec;
    Map<String, String> metadataIds = Map.of();
    try {
      spec = cdi.write(ref, devices, ContainerEdits.NONE);
      if (metadata.isPresent()) {
        metadataIds = writeMetadata(r, devices);
      }
    } catch (DeviceException e) {
      throw undo(started, "claim " + ref + ": " + e.getMessage(), e);
    } catch (IOException | RuntimeException e) {
      throw undo(
          started, "claim " + ref + ": writing the CDI spec failed: " + Failures.describe(e), e);
    }
    CrashPoints.reach(CrashPoints.AFTER_CDI);
    List<CheckpointDevice> done = new ArrayList<>(devices.size());
    Set<String> requestsWithId = new HashSet<>();
    for (int i = 0; i < devices.size(); i++) {
      PreparedDevice p = devices.get(i);
      AllocatedDevice d = r.devices().get(i);
      List<String> ids = new ArrayList<>(spec.devices().get(i).cdiDeviceIds());
      String metaId = metadataIds.get(d.request());
      if (metaId != null && requestsWithId.add(d.request())) {
        ids.add(metaId);
      }
      done.add(CheckpointDevice.prepared(p, ids, p.status().map(DeviceStatuses::encode)));
    }
    ClaimCheckpoint completed = started.completed(done, store.bootId(), clock.instant());
    try {
      writeRecord(completed);
    } catch (IOException | RuntimeException e) {
      throw undo(
          started, "claim " + ref + ": writing the checkpoint failed: " + Failures.describe(e), e);
    }
    CrashPoints.reach(CrashPoints.AFTER_COMPLETED);
    return completed;
  }

  /**
   * The provider's devices in allocation order, checked: one per allocated device, statuses and
   * recorded keys valid.
   */
  private List<PreparedDevice> match(ResolvedClaim r, PrepareResult result) throws DeviceException {
    Map<String, PreparedDevice> byId = new LinkedHashMap<>();
    for (PreparedDevice p : result.devices()) {
      String id = identity(p.device());
      if (byId.putIfAbsent(id, p) != null) {
        throw new DeviceException(
            "the provider returned device " + describe(p.device()) + " twice");
      }
    }
    List<PreparedDevice> out = new ArrayList<>(r.devices().size());
    for (AllocatedDevice d : r.devices()) {
      PreparedDevice p = byId.remove(identity(d));
      if (p == null) {
        throw new DeviceException(
            "the provider returned no result for allocated device " + describe(d));
      }
      for (String key : p.recorded().keySet()) {
        if (key.startsWith(RESERVED_PREFIX)) {
          throw new DeviceException(
              "device "
                  + describe(d)
                  + ": recorded key \""
                  + key
                  + "\" uses the prefix "
                  + RESERVED_PREFIX
                  + ", which is reserved for dra4j");
        }
      }
      if (p.status().isPresent()) {
        try {
          DeviceStatuses.validate(describe(d), p.status().get());
        } catch (IllegalArgumentException e) {
          throw new DeviceException("invalid claim status from the provider: " + e.getMessage());
        }
      }
      // Keep the runtime's view of the allocation (with its config) in the result.
      out.add(p.withDevice(d));
    }
    if (!byId.isEmpty()) {
      throw new DeviceException(
          "the provider returned results for devices that are not allocated to the claim: "
              + byId.values().stream().map(p -> describe(p.device())).toList());
    }
    return out;
  }

  private static String identity(AllocatedDevice d) {
    return d.request() + "|" + DeviceIndex.key(d.pool(), d.device(), d.shareId());
  }

  private static String describe(AllocatedDevice d) {
    return d.pool()
        + "/"
        + d.device()
        + d.shareId().map(s -> " (share " + s + ")").orElse("")
        + " of request "
        + d.request();
  }

  private Map<String, String> writeMetadata(ResolvedClaim r, List<PreparedDevice> devices)
      throws IOException {
    List<DeviceMetadataFiles.Entry> entries = new ArrayList<>();
    for (PreparedDevice p : devices) {
      AllocatedDevice d = p.device();
      entries.add(
          new DeviceMetadataFiles.Entry(
              d.request(), d.pool(), d.device(), lookup.find(d.pool(), d.device()), p.status()));
    }
    Map<String, String> ann = r.claim().metadata().annotations();
    Optional<String> podClaimName =
        ann == null ? Optional.empty() : Optional.ofNullable(ann.get(POD_CLAIM_NAME_ANNOTATION));
    return metadata.get().write(r.ref(), podClaimName, entries);
  }

  /**
   * Undoes a failed prepare: provider.unprepare (not completed), CDI spec, metadata, record, index.
   * When the provider cannot undo, the PrepareStarted record and the reservation stay, so the
   * rollback is tried again later.
   */
  private ClaimException undo(ClaimCheckpoint started, String message, Exception cause) {
    ClaimException failure = new ClaimException(message, cause);
    try {
      rollBack(started, "its prepare failed", false);
    } catch (ClaimException | IOException e) {
      failure.addSuppressed(e);
      return new ClaimException(
          message
              + " (and rolling it back failed: "
              + started.claim().unprefixed(Failures.describe(e))
              + ")",
          cause);
    }
    return failure;
  }

  /**
   * Rolls back a claim's record: provider.unprepare, CDI spec and metadata removed, record deleted,
   * devices released.
   *
   * @param bestEffort a provider failure is logged and the rollback goes on (records of an earlier
   *     boot: the reboot already reset the devices)
   * @throws ClaimException when the provider failed and {@code bestEffort} is false; the record is
   *     then kept
   */
  private void rollBack(ClaimCheckpoint rec, String why, boolean bestEffort)
      throws ClaimException, IOException {
    ClaimRef ref = rec.claim();
    log.info("driver {} claim {}: rolling back ({})", driver, ref, why);
    try {
      providerUnprepare(rec);
    } catch (DeviceException | RuntimeException e) {
      if (!bestEffort) {
        throw new ClaimException(
            "claim "
                + ref
                + ": rolling back ("
                + why
                + ") failed: "
                + ref.unprefixed(Failures.describe(e)),
            e);
      }
      reportError(
          "driver "
              + driver
              + " claim "
              + ref
              + ": provider.unprepare during rollback failed (ignored, "
              + why
              + "): "
              + ref.unprefixed(Failures.describe(e)),
          e);
    }
    CrashPoints.reach(CrashPoints.ROLLBACK_AFTER_PROVIDER);
    removeFiles(rec);
    CrashPoints.reach(CrashPoints.ROLLBACK_AFTER_FILES);
    store.delete(ref.uid());
    index.release(ref.uid());
    rolledBack.incrementAndGet();
  }

  private PrepareResult providerPrepare(ResolvedClaim r) throws DeviceException {
    long start = System.nanoTime();
    boolean failed = true;
    try {
      PrepareResult result = provider.prepare(r.allocation());
      failed = false;
      return result;
    } finally {
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      boolean f = failed;
      notify(() -> listener.providerCalled(ClaimListener.ProviderCall.PREPARE, took, f));
    }
  }

  private void providerUnprepare(ClaimCheckpoint rec) throws DeviceException {
    long start = System.nanoTime();
    boolean failed = true;
    try {
      provider.unprepare(forProvider(rec));
      failed = false;
    } finally {
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      boolean f = failed;
      notify(() -> listener.providerCalled(ClaimListener.ProviderCall.UNPREPARE, took, f));
    }
  }

  private void writeRecord(ClaimCheckpoint rec) throws IOException {
    long start = System.nanoTime();
    boolean failed = true;
    try {
      store.write(rec);
      failed = false;
    } finally {
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      boolean f = failed;
      notify(() -> listener.checkpointWritten(took, f));
    }
  }

  private void removeFiles(ClaimCheckpoint rec) throws IOException {
    cdi.remove(rec.claim().uid());
    if (metadata.isPresent()) {
      metadata.get().remove(rec.claim(), requests(rec));
    }
  }

  private static List<String> requests(ClaimCheckpoint rec) {
    return rec.devices().stream().map(CheckpointDevice::request).distinct().toList();
  }

  /** The record as the provider sees it. */
  private static PreparedClaim forProvider(ClaimCheckpoint rec) {
    List<RecordedDevice> devices =
        rec.devices().stream().map(CheckpointDevice::toRecordedDevice).toList();
    return PreparedClaim.of(rec.claim(), devices, rec.isCompleted());
  }

  private Optional<ClaimCheckpoint> readRecord(String uid) throws ClaimException, IOException {
    try {
      return store.read(uid);
    } catch (CheckpointException e) {
      if (e.movedTo().isPresent()) {
        // A corrupt record was moved aside: nothing is known about what it prepared.
        // The message names the record and its claim.
        reportError("driver " + driver + ": " + e.getMessage(), e);
        return Optional.empty();
      }
      throw new ClaimException(e.getMessage(), e);
    }
  }

  private static List<KubeletDevice> toKubelet(ClaimCheckpoint rec) {
    List<KubeletDevice> out = new ArrayList<>(rec.devices().size());
    for (CheckpointDevice d : rec.devices()) {
      out.add(
          new KubeletDevice(d.requestNames(), d.pool(), d.device(), d.cdiDeviceIds(), d.shareId()));
    }
    return out;
  }

  // ------------------------------------------------------------------------------------------
  // Claim status

  /**
   * Applies the recorded statuses of the claim's devices with server-side apply. A failure fails
   * the claim: the kubelet retries, and the repeated prepare applies the status again from the
   * checkpoint.
   */
  private void applyStatus(ResolvedClaim r, ClaimCheckpoint rec) throws ClaimException {
    List<AllocatedDeviceStatus> entries = new ArrayList<>();
    for (CheckpointDevice d : rec.devices()) {
      if (d.status().isEmpty()) {
        continue;
      }
      DeviceStatus s;
      try {
        s = DeviceStatuses.decode(d.status().get());
      } catch (JsonProcessingException e) {
        throw new ClaimException(
            "claim "
                + r.ref()
                + ": the recorded status of device "
                + d.pool()
                + "/"
                + d.device()
                + " cannot be read: "
                + Failures.describe(e),
            e);
      }
      String key = driver + "/" + DeviceIndex.key(d.pool(), d.device(), d.shareId());
      Optional<AllocatedDeviceStatus> previous =
          r.claim().status().devices().stream().filter(p -> p.key().equals(key)).findFirst();
      entries.add(
          DeviceStatuses.toWire(
              driver, d.pool(), d.device(), d.shareId(), s, previous, clock.instant()));
    }
    if (entries.isEmpty()) {
      return;
    }
    if (kubeClient.isEmpty()) {
      log.debug("driver {} claim {}: no API client; claim status not applied", driver, r.ref());
      return;
    }
    Map<String, Object> patch = new LinkedHashMap<>();
    patch.put("apiVersion", ResourceClaim.TYPE.apiVersion());
    patch.put("kind", ResourceClaim.TYPE.kind());
    patch.put(
        "metadata",
        Map.of("name", r.ref().name(), "namespace", r.ref().namespace(), "uid", r.ref().uid()));
    patch.put("status", Map.of("devices", entries));
    try {
      kubeClient
          .get()
          .apply(
              ResourceClaim.TYPE,
              r.ref().namespace(),
              r.ref().name(),
              "status",
              patch,
              new ApplyOptions(driver, true));
      log.info("driver {} claim {}: applied status of {} devices", driver, r.ref(), entries.size());
    } catch (KubeException e) {
      throw new ClaimException(
          "claim "
              + r.ref()
              + ": devices are prepared, but applying their status failed (HTTP "
              + e.status()
              + "): "
              + e.getMessage(),
          e);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Unprepare

  @Override
  public Map<String, Optional<String>> unprepare(List<ClaimRef> claims, NodeCall call)
      throws Exception {
    inFlight.addAndGet(claims.size());
    try {
      return unprepareAll(claims, call);
    } finally {
      inFlight.addAndGet(-claims.size());
    }
  }

  private Map<String, Optional<String>> unprepareAll(List<ClaimRef> claims, NodeCall call)
      throws Exception {
    Map<String, Optional<String>> out = new LinkedHashMap<>();
    try (ClaimSerializer.Pass claimsPass = serializer.claims(claims);
        ClaimSerializer.Pass pass = enter(call)) {
      for (ClaimRef ref : claims) {
        long start = System.nanoTime();
        Optional<String> error;
        try (var mdc = mdc(ref)) {
          error = unprepareOne(ref);
          Duration took = Duration.ofNanos(System.nanoTime() - start);
          if (error.isEmpty()) {
            unprepared.incrementAndGet();
            notify(() -> listener.unprepared(ref, took));
          } else {
            unprepareFailures.incrementAndGet();
            log.warn(
                "driver {} claim {}: unprepare failed: {}",
                driver,
                ref,
                ref.unprefixed(error.get()));
            String err = error.get();
            notify(() -> listener.unprepareFailed(ref, err, took));
          }
        }
        out.put(ref.uid(), error);
      }
    }
    return out;
  }

  /** Unprepares one claim, under the driver's lock and the claim's own. */
  private Optional<String> unprepareOne(ClaimRef ref) {
    try {
      Optional<ClaimCheckpoint> existing = readRecord(ref.uid());
      if (existing.isEmpty()) {
        // Never prepared, or already unprepared: remove strays, succeed without the provider.
        cdi.remove(ref.uid());
        if (metadata.isPresent()) {
          metadata.get().removeStraySpecs(ref.uid());
        }
        index.release(ref.uid());
        log.info("driver {} claim {}: unprepared (was not prepared)", driver, ref);
        return Optional.empty();
      }
      ClaimCheckpoint rec = existing.get();
      boolean earlier = store.fromEarlierBoot(rec);
      try {
        providerUnprepare(rec);
      } catch (DeviceException | RuntimeException e) {
        if (!earlier) {
          if (e instanceof RuntimeException) {
            log.error("driver {} claim {}: provider.unprepare threw", driver, ref, e);
          }
          return Optional.of("claim " + ref + ": " + ref.unprefixed(Failures.describe(e)));
        }
        reportError(
            "driver "
                + driver
                + " claim "
                + ref
                + ": provider.unprepare of a record from before the reboot failed (ignored): "
                + ref.unprefixed(Failures.describe(e)),
            e);
      }
      CrashPoints.reach(CrashPoints.AFTER_PROVIDER_UNPREPARE);
      removeFiles(rec);
      CrashPoints.reach(CrashPoints.AFTER_FILES_UNPREPARE);
      store.delete(ref.uid());
      index.release(ref.uid());
      log.info("driver {} claim {}: unprepared", driver, ref);
      return Optional.empty();
    } catch (ClaimException e) {
      return Optional.of(e.getMessage());
    } catch (IOException e) {
      return Optional.of("claim " + ref + ": " + Failures.describe(e));
    } catch (RuntimeException e) {
      log.error("driver {} claim {}: unprepare failed unexpectedly", driver, ref, e);
      return Optional.of(
          "claim " + ref + ": internal error (see the driver's log): " + Failures.describe(e));
    }
  }

  // ------------------------------------------------------------------------------------------
  // Locking, logging

  private ClaimSerializer.Pass enter(NodeCall call) throws IOException, InterruptedException {
    ClaimSerializer.Pass pass = serializer.call(this::syncWithOtherProcesses);
    if (call.isCancelled()) {
      pass.close();
      throw new CancellationException(
          "the kubelet cancelled the call while it waited for the serialization lock");
    }
    return pass;
  }

  private interface Mdc extends AutoCloseable {
    @Override
    void close();
  }

  private Mdc mdc(ClaimRef ref) {
    MDC.put("driver", driver);
    MDC.put("claim", ref.namespace() + "/" + ref.name());
    MDC.put("claimUid", ref.uid());
    return () -> {
      MDC.remove("driver");
      MDC.remove("claim");
      MDC.remove("claimUid");
    };
  }

  private void notify(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      reportError("driver " + driver + ": claim listener failed: " + e, e);
    }
  }

  private void reportError(String message, Throwable cause) {
    DriverErrorHandler.report(
        errorHandler, DriverError.recoverable(DriverError.Source.CLAIMS, message, cause));
  }

  /** Builds a {@link ClaimPreparer}. */
  public static final class Builder {
    private static final String BUILT = "ClaimPreparer";

    private String driverName;
    private DeviceProvider provider;
    private KubeClient kubeClient;
    private ClaimSource claimSource;
    private Path pluginDataDirectory;
    private Path cdiDirectory = CdiSpecWriter.DEFAULT_DIRECTORY;
    private CdiKind cdiKind;
    private Path devRoot = ProviderContext.DEFAULT_DEV_ROOT;
    private Path bootIdFile = BootId.DEFAULT_FILE;
    private boolean deviceMetadata;
    private DeviceLookup lookup = DeviceLookup.none();
    private Clock clock = Clock.systemUTC();
    private ClaimListener listener = ClaimListener.NONE;
    private DriverErrorHandler errorHandler = DriverErrorHandler.logging();
    private Logger logger = DEFAULT_LOG;
    private ClaimSerializer serializer;

    private Builder() {}

    /** The DRA driver name (required). */
    public Builder driverName(String value) {
      driverName = Objects.requireNonNull(value, "driverName");
      return this;
    }

    /** The vendor's provider (required). */
    public Builder provider(DeviceProvider value) {
      provider = Objects.requireNonNull(value, "provider");
      return this;
    }

    /**
     * The API client: reads claims (unless {@link #claimSource} is set) and applies claim status.
     */
    public Builder kubeClient(KubeClient value) {
      kubeClient = Objects.requireNonNull(value, "kubeClient");
      return this;
    }

    /**
     * Where claims are read; defaults to {@link #kubeClient}. Without a client no status is
     * applied.
     */
    public Builder claimSource(ClaimSource value) {
      claimSource = Objects.requireNonNull(value, "claimSource");
      return this;
    }

    /** The kubelet plugin data directory (required); checkpoints live under it. */
    public Builder pluginDataDirectory(Path value) {
      pluginDataDirectory = Objects.requireNonNull(value, "pluginDataDirectory");
      return this;
    }

    /** The CDI spec directory. Default: {@link CdiSpecWriter#DEFAULT_DIRECTORY}. */
    public Builder cdiDirectory(Path value) {
      cdiDirectory = Objects.requireNonNull(value, "cdiDirectory");
      return this;
    }

    /** The kind of the claim CDI specs; default {@link CdiKind#forDriver}. */
    public Builder cdiKind(CdiKind value) {
      cdiKind = Objects.requireNonNull(value, "cdiKind");
      return this;
    }

    /**
     * Where the host's {@code /dev} is visible. Default: {@link ProviderContext#DEFAULT_DEV_ROOT}.
     */
    public Builder devRoot(Path value) {
      devRoot = Objects.requireNonNull(value, "devRoot");
      return this;
    }

    /** The boot id file; default {@code /proc/sys/kernel/random/boot_id}. */
    public Builder bootIdFile(Path value) {
      bootIdFile = Objects.requireNonNull(value, "bootIdFile");
      return this;
    }

    /** Writes KEP-5304 device metadata files; default false. */
    public Builder deviceMetadata(boolean value) {
      deviceMetadata = value;
      return this;
    }

    /** Published devices, for the metadata attributes. */
    public Builder inventory(DeviceLookup value) {
      lookup = Objects.requireNonNull(value, "inventory");
      return this;
    }

    /** Published devices keyed by {@code pool/device}, read on each use. */
    public Builder inventory(
        java.util.function.Supplier<Map<String, io.dra4j.api.device.Device>> value) {
      lookup = DeviceLookup.fromMap(value);
      return this;
    }

    /** The clock of checkpoint and condition times. */
    public Builder clock(Clock value) {
      clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /** Where the pipeline logs. Default: this class's logger. */
    public Builder logger(Logger value) {
      logger = Objects.requireNonNull(value, "logger");
      return this;
    }

    /** Hears prepared, unprepared and failed claims. Default: {@link ClaimListener#NONE}. */
    public Builder listener(ClaimListener value) {
      listener = Objects.requireNonNull(value, "listener");
      return this;
    }

    /**
     * Where the errors no kubelet call returns go, all {@linkplain DriverError.Severity#RECOVERABLE
     * recoverable}: a rollback that failed at recovery (the record is kept and tried again), a
     * provider failure ignored in a best-effort rollback, an unreadable checkpoint record moved
     * aside, a failed listener. Default: {@link DriverErrorHandler#logging()}.
     */
    public Builder errorHandler(DriverErrorHandler value) {
      errorHandler = Objects.requireNonNull(value, "errorHandler");
      return this;
    }

    /**
     * Which calls may run at once, for the calls and for {@link #recover()}; default {@link
     * ClaimSerializer#forDriver} without rolling update, from the provider's {@link
     * DeviceProvider#threadSafe()}.
     */
    public Builder serializer(ClaimSerializer value) {
      serializer = Objects.requireNonNull(value, "serializer");
      return this;
    }

    /**
     * Opens the checkpoint store and builds the pipeline.
     *
     * @throws MissingSettingException naming a required setting that was not given
     */
    public ClaimPreparer build() throws IOException {
      MissingSettingException.require(driverName, BUILT, "driverName");
      MissingSettingException.require(provider, BUILT, "provider");
      if (claimSource == null) {
        claimSource =
            ClaimSource.of(
                MissingSettingException.require(kubeClient, BUILT, "kubeClient (or claimSource)"));
      }
      MissingSettingException.require(pluginDataDirectory, BUILT, "pluginDataDirectory");
      AtomicFiles.createPrivateDirectory(pluginDataDirectory);
      CheckpointStore store = CheckpointStore.open(pluginDataDirectory, bootIdFile);
      return new ClaimPreparer(this, store);
    }
  }
}
