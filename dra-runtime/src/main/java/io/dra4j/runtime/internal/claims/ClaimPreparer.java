package io.dra4j.runtime.internal.claims;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.metadata.DeviceMetadata;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.api.provider.TypedConfig;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.internal.Failures;
import io.dra4j.runtime.cdi.CdiKind;
import io.dra4j.runtime.cdi.CdiSpecDirectories;
import io.dra4j.runtime.cdi.CdiSpecWriter;
import io.dra4j.runtime.cdi.DeviceNodeCheck;
import io.dra4j.runtime.errors.DriverError;
import io.dra4j.runtime.errors.DriverErrorHandler;
import io.dra4j.runtime.errors.MissingSettingException;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.runtime.internal.CrashPoints;
import io.dra4j.runtime.internal.checkpoint.BootId;
import io.dra4j.runtime.internal.checkpoint.CheckpointStore;
import io.dra4j.runtime.internal.checkpoint.ClaimCheckpoint;
import io.dra4j.runtime.report.ClaimStats;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim preparation pipeline: the {@link NodeService} behind the kubelet's {@code
 * NodePrepareResources} and {@code NodeUnprepareResources}, for any {@link DeviceProvider}. This
 * class wires the steps and runs a call's work in its order; each step is its own class.
 *
 * <h2>Prepare</h2>
 *
 * Before the serialization lock, like the Go helper: each ResourceClaim is read, its UID and
 * allocation checked, this driver's results kept and their opaque configs decoded strictly ({@link
 * ClaimReader}). Then, per claim in the kubelet's order, the crash-safe {@link PrepareTransaction}:
 * checkpoint records ({@link Records}), the overlap guard ({@link DeviceIndex}), the provider
 * ({@link ProviderCalls}, its result checked by {@link ResultCheck}), the CDI spec and device
 * metadata ({@link ClaimFiles}), rollback ({@link ClaimRelease}). After the serialization lock,
 * under each claim's own, the claim status is applied ({@link ClaimStatusWriter}): the API server's
 * round trip holds up no other claim. A failure of one claim never fails another.
 *
 * <h2>Unprepare</h2>
 *
 * Needs no API server (the claim may be gone): the checkpoint record says what to release ({@link
 * ClaimRelease}). A claim without a record succeeds without a provider call.
 *
 * <h2>Concurrency</h2>
 *
 * The driver's {@link ClaimSerializer} decides which calls run at once: one at a time for a
 * provider that is not {@link DeviceProvider#threadSafe() thread-safe}, in parallel (one at a time
 * per claim) for one that is, and in a rolling update never interleaved with the other driver
 * process. The overlap guard is one atomic index, so it stays exact either way. When the serializer
 * notices that another process held its lock in between, the index is rebuilt from the checkpoint
 * records ({@link Recovery#resync}).
 *
 * <p>Logs, counters, the listener and the error handler are one outlet, {@link ClaimEvents}.
 */
public final class ClaimPreparer implements NodeService {

  private static final Logger DEFAULT_LOG = LoggerFactory.getLogger(ClaimPreparer.class);

  private final ClaimEvents events;
  private final ClaimSerializer serializer;
  private final DeviceIndex index = new DeviceIndex();
  private final ClaimReader reader;
  private final PrepareTransaction transaction;
  private final ClaimRelease release;
  private final ClaimStatusWriter status;
  private final Recovery recovery;
  private final Records records;
  private final ClaimFiles files;

  private ClaimPreparer(Builder b, CheckpointStore store) {
    String driver = b.driverName;
    this.events = new ClaimEvents(driver, b.logger, b.listener, b.errorHandler);
    this.serializer =
        b.serializer != null
            ? b.serializer
            : ClaimSerializer.forDriver(b.provider, b.pluginDataDirectory, Optional.empty());
    CdiKind kind = b.cdiKind != null ? b.cdiKind : CdiKind.forDriver(driver);
    this.files =
        new ClaimFiles(
            new CdiSpecWriter(b.cdiDirectory, kind, new DeviceNodeCheck(b.devRoot)),
            b.deviceMetadata
                ? Optional.of(
                    new DeviceMetadataFiles(
                        driver, b.pluginDataDirectory, b.cdiDirectory, b.deviceMetadataVersions))
                : Optional.empty(),
            b.lookup,
            b.pluginDataDirectory,
            b.staticCdiDirectory);
    this.records = new Records(store, b.clock, events);
    ProviderCalls provider = new ProviderCalls(b.provider, events);
    this.reader =
        new ClaimReader(
            events,
            b.claimSource,
            new OpaqueConfigs(
                driver,
                b.provider instanceof TypedConfig t
                    ? Optional.of(t)
                    : Optional.<TypedConfig>empty()));
    this.release = new ClaimRelease(events, records, provider, files, index);
    this.transaction = new PrepareTransaction(events, records, provider, files, index, release);
    this.status = new ClaimStatusWriter(events, Optional.ofNullable(b.kubeClient), b.clock);
    this.recovery = new Recovery(events, records, release, files, index);
  }

  /** A builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** The driver this pipeline prepares for. */
  public String driverName() {
    return events.driver();
  }

  /** Counters for metrics. */
  public ClaimStats stats() {
    return events.stats(index::claims);
  }

  /**
   * Startup: rolls back interrupted prepares (PrepareStarted records) and records of an earlier
   * boot, rebuilds the overlap guard from the remaining records and removes this driver's CDI specs
   * and metadata files that no record accounts for. Call it before serving.
   */
  @SuppressWarnings("try")
  public RecoveryReport recover() throws IOException {
    // Recovery rebuilds the index from the records anyway: nothing to resync on taking the lock.
    try (ClaimSerializer.Pass alone = serializer.alone(ClaimSerializer.NOTHING)) {
      return recovery.run();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the serialization lock", e);
    }
  }

  // ------------------------------------------------------------------------------------------
  // The kubelet's calls

  @Override
  public Map<String, ClaimPrepareResult> prepare(List<ClaimRef> claims, NodeCall call)
      throws Exception {
    events.inFlight(claims.size());
    try {
      return prepareAll(claims, call);
    } finally {
      events.inFlight(-claims.size());
    }
  }

  private Map<String, ClaimPrepareResult> prepareAll(List<ClaimRef> claims, NodeCall call)
      throws Exception {
    long start = System.nanoTime();
    // Slow work first, without the lock: read and check every claim.
    Map<String, ClaimReader.Read> read = new LinkedHashMap<>();
    for (ClaimRef ref : claims) {
      read.put(ref.uid(), reader.read(ref));
    }
    Map<String, PrepareTransaction.Outcome> outcomes = new LinkedHashMap<>();
    Map<String, Long> started = new HashMap<>();
    try (ClaimSerializer.Pass claimsPass = serializer.claims(claims)) {
      try (ClaimSerializer.Pass pass = enter(call)) {
        for (ClaimRef ref : claims) {
          ClaimReader.Read r = read.get(ref.uid());
          started.put(ref.uid(), r instanceof ClaimReader.Refused ? start : System.nanoTime());
          try (var context = events.claim(ref)) {
            outcomes.put(
                ref.uid(),
                r instanceof ClaimReader.Readable readable
                    ? transaction.prepare(readable.claim(), call)
                    : PrepareTransaction.Outcome.failed(
                        ((ClaimReader.Refused) r).reason().getMessage()));
          }
        }
      }
      // The claim statuses go to the API server after the driver's lock, under each claim's own:
      // a round trip to the API server is no reason for another claim's prepare to wait.
      Map<String, ClaimPrepareResult> out = new LinkedHashMap<>();
      for (ClaimRef ref : claims) {
        try (var context = events.claim(ref)) {
          PrepareTransaction.Outcome outcome = outcomes.get(ref.uid());
          ClaimPrepareResult result = withStatus(ref, outcome);
          // A refused claim's time is the call's: reading it was all the work it cost.
          Duration took = Duration.ofNanos(System.nanoTime() - started.get(ref.uid()));
          if (result.isOk()) {
            events.prepared(ref, took, outcome.fromCheckpoint(), result.devices());
          } else {
            events.prepareFailed(ref, result.error().get(), took);
          }
          out.put(ref.uid(), result);
        }
      }
      return out;
    }
  }

  /** The outcome's result once the status it waits for is applied. */
  private ClaimPrepareResult withStatus(ClaimRef ref, PrepareTransaction.Outcome outcome) {
    if (outcome.status().isEmpty()) {
      return outcome.result();
    }
    try {
      PrepareTransaction.Pending pending = outcome.status().get();
      status.applyRecorded(pending.claim(), pending.record());
      CrashPoints.reach(CrashPoints.AFTER_STATUS);
      return outcome.result();
    } catch (ClaimException e) {
      return ClaimPrepareResult.failed(e.getMessage());
    } catch (RuntimeException e) {
      events
          .log()
          .error(
              "driver {} claim {}: applying the claim status failed unexpectedly",
              events.driver(),
              ref,
              e);
      return ClaimPrepareResult.failed(
          "claim " + ref + ": internal error (see the driver's log): " + Failures.describe(e));
    }
  }

  @Override
  public Map<String, Optional<String>> unprepare(List<ClaimRef> claims, NodeCall call)
      throws Exception {
    events.inFlight(claims.size());
    try (ClaimSerializer.Pass claimsPass = serializer.claims(claims);
        ClaimSerializer.Pass pass = enter(call)) {
      Map<String, Optional<String>> out = new LinkedHashMap<>();
      for (ClaimRef ref : claims) {
        long start = System.nanoTime();
        Optional<String> error;
        try (var context = events.claim(ref)) {
          error = release.unprepare(ref);
          Duration took = Duration.ofNanos(System.nanoTime() - start);
          if (error.isEmpty()) {
            events.unprepared(ref, took);
          } else {
            events.unprepareFailed(ref, error.get(), took);
          }
        }
        out.put(ref.uid(), error);
      }
      return out;
    } finally {
      events.inFlight(-claims.size());
    }
  }

  /**
   * A provider's update of one request's device metadata ({@link
   * io.dra4j.api.metadata.RequestMetadataWriter}), under the claim's lock so that it never overlaps
   * a prepare or unprepare of the claim. Only a completed prepare's files are updated.
   */
  public void updateRequestMetadata(ClaimRef claim, String request, List<DeviceMetadata> devices)
      throws DeviceException {
    try (ClaimSerializer.Pass claimPass = serializer.claims(List.of(claim));
        var context = events.claim(claim)) {
      Optional<ClaimCheckpoint> record = records.read(claim.uid());
      if (record.isEmpty() || !record.get().isCompleted()) {
        throw DeviceMetadataFiles.notFound(claim, request);
      }
      files.updateMetadata(claim, request, devices);
    } catch (ClaimException | IOException e) {
      throw new DeviceException(
          "claim "
              + claim
              + ": updating the device metadata of request "
              + request
              + ": "
              + e.getMessage(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DeviceException("interrupted while waiting for claim " + claim, e);
    }
  }

  /** Enters the driver's lock for a kubelet call, unless the kubelet gave up meanwhile. */
  private ClaimSerializer.Pass enter(NodeCall call) throws IOException, InterruptedException {
    ClaimSerializer.Pass pass = serializer.call(recovery::resync);
    if (call.isCancelled()) {
      pass.close();
      throw new CancellationException(
          "the kubelet cancelled the call while it waited for the serialization lock");
    }
    return pass;
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
    private Path staticCdiDirectory = CdiSpecDirectories.DEFAULT_STATIC_DIRECTORY;
    private CdiKind cdiKind;
    private Path devRoot = ProviderContext.DEFAULT_DEV_ROOT;
    private Path bootIdFile = BootId.DEFAULT_FILE;
    private boolean deviceMetadata;
    private List<String> deviceMetadataVersions = DeviceMetadataStream.DEFAULT_VERSIONS;
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

    /**
     * Where the static CDI specs are, as this process sees them: a CDI device id that the provider
     * manages itself must name a device of a spec here or in {@link #cdiDirectory}. Default: {@link
     * CdiSpecDirectories#DEFAULT_STATIC_DIRECTORY}.
     */
    public Builder staticCdiDirectory(Path value) {
      staticCdiDirectory = Objects.requireNonNull(value, "staticCdiDirectory");
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

    /**
     * The device metadata versions to write, in this order (see {@link
     * DeviceMetadataStream#checkVersions}). Default: {@link DeviceMetadataStream#DEFAULT_VERSIONS}.
     */
    public Builder deviceMetadataVersions(List<String> value) {
      deviceMetadataVersions = DeviceMetadataStream.checkVersions(value);
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
