package io.dra4j.testkit.kubelet;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.health.HealthStatus;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One registered plugin instance (a driver may have several during a rolling update), with the
 * calls the kubelet makes on it. Calls throw {@link io.grpc.StatusRuntimeException} when the RPC
 * fails, and {@link IllegalStateException} when the answer is one the kubelet would reject (a
 * result for a claim that was not asked for, or a missing one).
 */
public final class PluginInstance {

  /** The kubelet's deadline for NodePrepareResources and NodeUnprepareResources. */
  public static final Duration CALL_TIMEOUT = Duration.ofSeconds(45);

  private final String driverName;
  private final String pluginType;
  private final Path registrationSocket;
  private final Path endpoint;
  private final List<String> supportedVersions;
  private final DraVersion draVersion;
  private final Optional<HealthVersion> healthVersion;
  private final Instant registeredAt;
  private final ManagedChannel channel;
  private final KubeletSimulator.ContainerRuntime runtime;

  PluginInstance(
      String driverName,
      String pluginType,
      Path registrationSocket,
      Path endpoint,
      List<String> supportedVersions,
      DraVersion draVersion,
      Optional<HealthVersion> healthVersion,
      Instant registeredAt,
      ManagedChannel channel,
      KubeletSimulator.ContainerRuntime runtime) {
    this.driverName = driverName;
    this.pluginType = pluginType;
    this.registrationSocket = registrationSocket;
    this.endpoint = endpoint;
    this.supportedVersions = List.copyOf(supportedVersions);
    this.draVersion = draVersion;
    this.healthVersion = healthVersion;
    this.registeredAt = registeredAt;
    this.channel = channel;
    this.runtime = runtime;
  }

  public String driverName() {
    return driverName;
  }

  /** {@code PluginInfo.type} as advertised (always {@code DRAPlugin} for a registered plugin). */
  public String pluginType() {
    return pluginType;
  }

  public Path registrationSocket() {
    return registrationSocket;
  }

  /** The DRA socket the plugin named (or the registration socket when it named none). */
  public Path endpoint() {
    return endpoint;
  }

  /** {@code supported_versions} exactly as advertised. */
  public List<String> supportedVersions() {
    return supportedVersions;
  }

  /** The DRA service version the kubelet would use. */
  public DraVersion draVersion() {
    return draVersion;
  }

  /** The health service a 1.37 kubelet would watch; empty when none is advertised. */
  public Optional<HealthVersion> healthVersion() {
    return healthVersion;
  }

  public Instant registeredAt() {
    return registeredAt;
  }

  /** True while the connection to the endpoint is up. */
  public boolean isConnected() {
    return channel.getState(false) == ConnectivityState.READY;
  }

  /** NodePrepareResources on the chosen version. */
  public Map<String, ClaimResult> prepare(List<ClaimRef> claims) {
    return prepare(draVersion, claims);
  }

  /** NodePrepareResources on a given version, advertised or not. */
  public Map<String, ClaimResult> prepare(DraVersion version, List<ClaimRef> claims) {
    Map<String, ClaimResult> out = new LinkedHashMap<>();
    if (version == DraVersion.V1) {
      var request = io.dra4j.proto.dra.v1.NodePrepareResourcesRequest.newBuilder();
      claims.forEach(c -> request.addClaims(v1Claim(c)));
      var response =
          io.dra4j.proto.dra.v1.DRAPluginGrpc.newBlockingStub(channel)
              .withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
              .nodePrepareResources(request.build());
      response
          .getClaimsMap()
          .forEach(
              (uid, r) -> {
                List<DeviceResult> devices = new ArrayList<>();
                for (var d : r.getDevicesList()) {
                  devices.add(
                      new DeviceResult(
                          d.getRequestNamesList(),
                          d.getPoolName(),
                          d.getDeviceName(),
                          d.getCdiDeviceIdsList(),
                          d.hasShareId() ? Optional.of(d.getShareId()) : Optional.empty()));
                }
                out.put(uid, new ClaimResult(devices, error(r.getError())));
              });
    } else {
      var request = io.dra4j.proto.dra.v1beta1.NodePrepareResourcesRequest.newBuilder();
      claims.forEach(c -> request.addClaims(v1beta1Claim(c)));
      var response =
          io.dra4j.proto.dra.v1beta1.DRAPluginGrpc.newBlockingStub(channel)
              .withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
              .nodePrepareResources(request.build());
      response
          .getClaimsMap()
          .forEach(
              (uid, r) -> {
                List<DeviceResult> devices = new ArrayList<>();
                for (var d : r.getDevicesList()) {
                  devices.add(
                      new DeviceResult(
                          d.getRequestNamesList(),
                          d.getPoolName(),
                          d.getDeviceName(),
                          d.getCdiDeviceIdsList(),
                          Optional.empty()));
                }
                out.put(uid, new ClaimResult(devices, error(r.getError())));
              });
    }
    checkLikeTheKubelet("NodePrepareResources", claims, out.keySet());
    Map<String, ClaimResult> prepared = new LinkedHashMap<>();
    out.forEach(
        (uid, r) -> {
          if (r.isOk()) {
            prepared.put(uid, r);
          }
        });
    if (!prepared.isEmpty()) {
      try {
        runtime.devicesPrepared(driverName, prepared);
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException("the container runtime rejected the prepared devices", e);
      }
    }
    return out;
  }

  /** NodeUnprepareResources on the chosen version: per claim UID, empty or the error. */
  public Map<String, Optional<String>> unprepare(List<ClaimRef> claims) {
    return unprepare(draVersion, claims);
  }

  /** NodeUnprepareResources on a given version. */
  public Map<String, Optional<String>> unprepare(DraVersion version, List<ClaimRef> claims) {
    Map<String, Optional<String>> out = new LinkedHashMap<>();
    if (version == DraVersion.V1) {
      var request = io.dra4j.proto.dra.v1.NodeUnprepareResourcesRequest.newBuilder();
      claims.forEach(c -> request.addClaims(v1Claim(c)));
      io.dra4j.proto.dra.v1.DRAPluginGrpc.newBlockingStub(channel)
          .withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .nodeUnprepareResources(request.build())
          .getClaimsMap()
          .forEach((uid, r) -> out.put(uid, error(r.getError())));
    } else {
      var request = io.dra4j.proto.dra.v1beta1.NodeUnprepareResourcesRequest.newBuilder();
      claims.forEach(c -> request.addClaims(v1beta1Claim(c)));
      io.dra4j.proto.dra.v1beta1.DRAPluginGrpc.newBlockingStub(channel)
          .withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .nodeUnprepareResources(request.build())
          .getClaimsMap()
          .forEach((uid, r) -> out.put(uid, error(r.getError())));
    }
    checkLikeTheKubelet("NodeUnprepareResources", claims, out.keySet());
    return out;
  }

  /**
   * Opens the health stream a 1.37 kubelet would open.
   *
   * @throws IllegalStateException when the plugin advertises no health service
   */
  public HealthWatch watchHealth() {
    return watchHealth(
        healthVersion.orElseThrow(
            () ->
                new IllegalStateException(
                    "plugin "
                        + driverName
                        + " advertises no health service (supported_versions "
                        + supportedVersions
                        + ")")));
  }

  /** Opens a health stream of the given version, advertised or not (as 1.34–1.36 kubelets do). */
  public HealthWatch watchHealth(HealthVersion version) {
    return watchHealth(version, Clock.systemUTC());
  }

  /**
   * Opens a health stream of the given version; {@code clock} stamps each message's receipt, from
   * which the kubelet's health cache ({@link HealthWatch#kubeletHealth}) counts timeouts.
   */
  public HealthWatch watchHealth(HealthVersion version, Clock clock) {
    HealthWatch watch = new HealthWatch(version, clock);
    if (version == HealthVersion.V1) {
      io.dra4j.proto.health.v1.DRAResourceHealthGrpc.newStub(channel)
          .nodeWatchResources(
              io.dra4j.proto.health.v1.NodeWatchResourcesRequest.getDefaultInstance(),
              watch
                  .<io.dra4j.proto.health.v1.NodeWatchResourcesRequest,
                      io.dra4j.proto.health.v1.NodeWatchResourcesResponse>
                      observer(PluginInstance::fromV1));
    } else {
      io.dra4j.proto.health.v1alpha1.DRAResourceHealthGrpc.newStub(channel)
          .nodeWatchResources(
              io.dra4j.proto.health.v1alpha1.NodeWatchResourcesRequest.getDefaultInstance(),
              watch
                  .<io.dra4j.proto.health.v1alpha1.NodeWatchResourcesRequest,
                      io.dra4j.proto.health.v1alpha1.NodeWatchResourcesResponse>
                      observer(PluginInstance::fromV1alpha1));
    }
    return watch;
  }

  void shutdown() {
    channel.shutdownNow();
  }

  @Override
  public String toString() {
    return driverName
        + " at "
        + endpoint
        + " (registration "
        + registrationSocket
        + ", "
        + draVersion.service()
        + healthVersion.map(h -> ", " + h.service()).orElse("")
        + ")";
  }

  private void checkLikeTheKubelet(String method, List<ClaimRef> claims, Set<String> answered) {
    Set<String> requested = new HashSet<>();
    claims.forEach(c -> requested.add(c.uid()));
    for (String uid : answered) {
      if (!requested.contains(uid)) {
        throw new IllegalStateException(
            "the kubelet would fail this call: "
                + method
                + " of driver "
                + driverName
                + " returned a result for unknown claim UID "
                + uid);
      }
    }
    if (answered.size() < requested.size()) {
      throw new IllegalStateException(
          "the kubelet would fail this call: "
              + method
              + " of driver "
              + driverName
              + " skipped "
              + (requested.size() - answered.size())
              + " ResourceClaims");
    }
  }

  private static Optional<String> error(String error) {
    return error.isEmpty() ? Optional.empty() : Optional.of(error);
  }

  private static io.dra4j.proto.dra.v1.Claim v1Claim(ClaimRef c) {
    return io.dra4j.proto.dra.v1.Claim.newBuilder()
        .setNamespace(c.namespace())
        .setName(c.name())
        .setUid(c.uid())
        .build();
  }

  private static io.dra4j.proto.dra.v1beta1.Claim v1beta1Claim(ClaimRef c) {
    return io.dra4j.proto.dra.v1beta1.Claim.newBuilder()
        .setNamespace(c.namespace())
        .setName(c.name())
        .setUid(c.uid())
        .build();
  }

  private static HealthReport fromV1(io.dra4j.proto.health.v1.NodeWatchResourcesResponse r) {
    List<DeviceHealthReport> devices = new ArrayList<>();
    for (var d : r.getDevicesList()) {
      devices.add(
          new DeviceHealthReport(
              d.getDevice().getPoolName(),
              d.getDevice().getDeviceName(),
              health(d.getHealth().name()),
              d.getLastUpdatedTime(),
              d.getHealthCheckTimeoutSeconds(),
              d.getMessage()));
    }
    return new HealthReport(HealthVersion.V1, devices);
  }

  private static HealthReport fromV1alpha1(
      io.dra4j.proto.health.v1alpha1.NodeWatchResourcesResponse r) {
    List<DeviceHealthReport> devices = new ArrayList<>();
    for (var d : r.getDevicesList()) {
      devices.add(
          new DeviceHealthReport(
              d.getDevice().getPoolName(),
              d.getDevice().getDeviceName(),
              health(d.getHealth().name()),
              d.getLastUpdatedTime(),
              d.getHealthCheckTimeoutSeconds(),
              d.getMessage()));
    }
    return new HealthReport(HealthVersion.V1ALPHA1, devices);
  }

  private static HealthStatus health(String wireName) {
    return switch (wireName) {
      case "HEALTHY" -> HealthStatus.HEALTHY;
      case "UNHEALTHY" -> HealthStatus.UNHEALTHY;
      default -> HealthStatus.UNKNOWN;
    };
  }
}
