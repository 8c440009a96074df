package io.dra4j.runtime.slices;

import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.PoolScope;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.OwnerReference;
import io.dra4j.runtime.errors.DriverError;
import io.dra4j.runtime.errors.DriverErrorHandler;
import io.dra4j.runtime.internal.slices.SlicePublisher;
import io.dra4j.runtime.report.PublisherStats;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Publishes a driver's pools as ResourceSlices and keeps them so, from anywhere: a control-plane
 * Deployment that makes network-attached devices schedulable needs no kubelet plugin and no node.
 * dra4j's counterpart of the Go helper's {@code resourceslice.StartController} ({@code
 * k8s.io/dynamic-resource-allocation/resourceslice}, v0.37.2); a node driver ({@code DraDriver})
 * runs the same publisher for its node.
 *
 * <pre>{@code
 * try (ResourceSlicePublisher publisher =
 *     ResourceSlicePublisher.builder(client, "fabric.example.com").start()) {
 *   publisher.publish(List.of(
 *       Pool.builder("rack-a").devices(ports).scope(PoolScope.nodeSelector(rackA)).build(),
 *       Pool.builder("shared").devices(accelerators).scope(PoolScope.allNodes()).build()));
 *   ... // publish again whenever the devices change; close() leaves the slices in place
 * }
 * }</pre>
 *
 * <h2>What it does, and where upstream defines it</h2>
 *
 * Line numbers are of {@code resourceslice/resourceslicecontroller.go} at v0.37.2.
 *
 * <ul>
 *   <li><b>Pools.</b> Each pool's {@link PoolScope} gives its slices {@code allNodes}, a {@code
 *       nodeSelector} or {@code perDeviceNodeSelection} (then each device says where it can be
 *       used). A node-local pool ({@link PoolScope#node()}) needs a {@linkplain Builder#nodeOwner
 *       Node owner}; without one it is reported invalid.
 *   <li><b>Validation and splitting (dra4j's own).</b> Every pool is validated as the API server
 *       would before any write: an invalid pool is reported to the {@linkplain Builder#errorHandler
 *       error handler} once, not published, and its existing slices are left as they are (upstream
 *       also reports without retrying, :743-748). dra4j then splits each pool into as many slices
 *       as the API's limits need (128 devices, 64 with taints or other advanced fields, counter
 *       sets apart); upstream's controller does not split: its caller hands it one entry per slice
 *       ({@code Pool.Slices}, :166-196).
 *   <li><b>Which slices are its own.</b> Without a Node owner: every ResourceSlice of the driver
 *       without {@code spec.nodeName}, whatever its owner: the informer's field selector is {@code
 *       spec.driver=<driver>,spec.nodeName=} (:546-560), and the slices of a pool it does not
 *       publish are deleted (:750-761). So run <b>one such publisher per driver in the cluster</b>:
 *       two would delete each other's pools. With a Node owner: the slices of that node (:553), and
 *       the slices of the non-node pools it published itself.
 *   <li><b>What it deletes.</b> A pool dropped from {@link #publish} at once (:427-432); the slices
 *       of pools it does not publish, found on the server, once it has a desired state; obsolete
 *       slices of a pool (older generation, name without the index prefix, index out of range or
 *       taken twice, :789-817) before it updates and creates (:870-874), with uid and
 *       resourceVersion preconditions (:998-1029). <i>Difference:</i> upstream starts with an empty
 *       desired state when none is given ({@code Options.Resources} nil, :537) and deletes every
 *       slice it owns one sync delay after its informer lists them; this publisher deletes nothing
 *       before its first desired state ({@link Builder#pools} or {@link #publish}), so a restarted
 *       publisher that does not know its pools yet takes no device away from the scheduler.
 *   <li><b>Owner.</b> The {@linkplain Builder#owner owner} becomes the controlling owner reference
 *       of every slice it creates (:912-923), and its name part of their {@code generateName},
 *       {@code <index>-<driver>-<owner name>-} (:924-931; dra4j lower-cases, turns {@code /} into
 *       {@code -} and cuts at 58 characters, as the API server would; without an owner it puts the
 *       pool name there, where upstream puts nothing). The garbage collector then deletes the
 *       slices with their owner; without an owner, whoever uninstalls the driver must delete them
 *       (:259-263): publishing an empty list does. A Node owner without uid is looked up once
 *       (:766-779).
 *   <li><b>Generation.</b> Upstream's rule (:781-868): the pool keeps its highest generation when
 *       at most one slice changes and none is created, otherwise moves to the next one and every
 *       slice is rewritten. <i>Differences:</i> a slice of an older generation is updated rather
 *       than deleted and created again; two slices with the same index keep the better one; there
 *       is no caller-chosen generation ({@code Pool.Generation}).
 *   <li><b>Sync delay.</b> A change somebody else made (a slice deleted or edited) is repaired
 *       {@linkplain Builder#syncDelay one sync delay} after the last such event, 30 s by default as
 *       upstream (:69, :632-667). <i>Difference:</i> the echo of its own write is recognised and
 *       triggers nothing, where upstream syncs the pool again after it.
 *   <li><b>Own writes</b> are trusted over a lagging informer for one minute, after which the pool
 *       is checked again (upstream's mutation cache and re-sync, :62, :970-993).
 *   <li><b>Errors.</b> A failed write goes to the error handler ({@link DriverError.Source#SLICES},
 *       recoverable) and the pool is retried with backoff (100 ms doubling to 30 s, with jitter;
 *       upstream: the error handler, then the work queue's per-item backoff of 5 ms to 1000 s,
 *       :700-719).
 *   <li><b>Dropped fields.</b> When the API server stores a slice with fewer fields than sent (a
 *       feature gate is off there), the error handler hears which gates are probably off, and the
 *       stored form is adopted so the same slice is not written again and again (upstream's {@code
 *       DroppedFieldsError}, :1034-1068).
 *   <li>{@link #close()} stops the publisher and leaves the slices in place (upstream's {@code
 *       Stop}, :410).
 * </ul>
 *
 * <p>The client needs, cluster-wide: {@code get}, {@code list}, {@code watch}, {@code create},
 * {@code update} and {@code delete} on {@code resource.k8s.io} {@code resourceslices}, and {@code
 * get} on {@code nodes} for a Node owner without uid.
 */
public final class ResourceSlicePublisher implements AutoCloseable {
  /** Upstream's {@code DefaultSyncDelay} (resourceslicecontroller.go:69). */
  public static final Duration DEFAULT_SYNC_DELAY = Duration.ofSeconds(30);

  private final SlicePublisher publisher;

  private ResourceSlicePublisher(SlicePublisher publisher) {
    this.publisher = publisher;
  }

  /**
   * A builder for a publisher of {@code driverName}'s slices through {@code client}.
   *
   * @param client used from the publisher's threads; the caller keeps it and closes it after the
   *     publisher
   */
  public static Builder builder(KubeClient client, String driverName) {
    return new Builder(client, driverName);
  }

  /**
   * Sets the desired state: these pools and no others (upstream's {@code Controller.Update}).
   * Returns at once; validation and writes happen in the background. A state published before the
   * publisher got to the previous one replaces it, which is then never written.
   *
   * @param pools unique names; an empty list deletes the slices of every pool this publisher owns
   * @throws IllegalStateException after {@link #close()}
   */
  public void publish(List<Pool> pools) {
    publisher.publish(pools);
  }

  /**
   * Waits until the last published state is on the API server: every valid pool written, every
   * removed pool's slices deleted, invalid pools reported, no retry pending.
   *
   * @return false when {@code timeout} passed first (the API server is unreachable, or refuses)
   */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    return publisher.awaitIdle(timeout);
  }

  /** What it did so far (upstream's {@code GetStats}, with failures and syncs besides). */
  public PublisherStats stats() {
    return publisher.stats();
  }

  /** Stops the publisher. Its slices stay on the API server. */
  @Override
  public void close() {
    publisher.close();
  }

  /** Builds and starts a {@link ResourceSlicePublisher}; each setting says its default. */
  public static final class Builder {
    private final SlicePublisher.Builder publisher;
    private Optional<OwnerReference> owner = Optional.empty();
    private Optional<List<Pool>> pools = Optional.empty();

    private Builder(KubeClient client, String driverName) {
      publisher =
          SlicePublisher.builder(client, driverName)
              .resyncDelay(DEFAULT_SYNC_DELAY)
              .errorHandler(DriverErrorHandler.logging());
    }

    /**
     * The controlling owner of the slices it creates, which must be cluster-scoped (a namespaced
     * owner would make the garbage collector delete them at once). Default: none.
     *
     * <p>A {@code v1} {@code Node} owner makes this the node's publisher: node-local pools get
     * {@code spec.nodeName}, and its uid, when empty, is looked up once. Any other owner needs its
     * uid.
     */
    public Builder owner(String apiVersion, String kind, String name, String uid) {
      requireNonEmpty(apiVersion, "owner apiVersion");
      requireNonEmpty(kind, "owner kind");
      requireNonEmpty(name, "owner name");
      Objects.requireNonNull(uid, "owner uid");
      boolean node = apiVersion.equals("v1") && kind.equals("Node");
      if (!node && uid.isEmpty()) {
        throw new IllegalArgumentException(
            "the owner " + kind + " " + name + " needs its uid (only a Node's is looked up)");
      }
      owner = Optional.of(new OwnerReference(apiVersion, kind, name, uid, true, false));
      return this;
    }

    /**
     * The Node {@code nodeName} as owner, its uid looked up once: {@code owner("v1", "Node", …)}.
     */
    public Builder nodeOwner(String nodeName) {
      return owner("v1", "Node", nodeName, "");
    }

    /**
     * The desired state to start with, published as soon as the publisher has listed what the API
     * server holds. Default: none: nothing is written or deleted until {@link #publish}.
     */
    public Builder pools(List<Pool> value) {
      pools = Optional.of(List.copyOf(value));
      return this;
    }

    /**
     * Where failed writes (retried), invalid pools (not published), pools published with warnings
     * and dropped fields go, all recoverable. Default: {@link DriverErrorHandler#logging()}.
     */
    public Builder errorHandler(DriverErrorHandler value) {
      publisher.errorHandler(Objects.requireNonNull(value, "errorHandler"));
      return this;
    }

    /**
     * How long after the last change made by someone else (a slice deleted or edited) the pool is
     * brought back; the events within it cost one sync. Default: {@link #DEFAULT_SYNC_DELAY}.
     */
    public Builder syncDelay(Duration value) {
      publisher.resyncDelay(Objects.requireNonNull(value, "syncDelay"));
      return this;
    }

    /** Starts the publisher: it lists the driver's slices, then writes once it has pools. */
    public ResourceSlicePublisher start() {
      if (owner.isPresent()) {
        OwnerReference o = owner.get();
        if (o.apiVersion().equals("v1") && o.kind().equals("Node")) {
          publisher.nodeName(o.name());
          if (!o.uid().isEmpty()) {
            publisher.ownerUid(o.uid());
          }
        }
        publisher.owner(o);
      }
      ResourceSlicePublisher p = new ResourceSlicePublisher(publisher.build().start());
      pools.ifPresent(p::publish);
      return p;
    }

    private static void requireNonEmpty(String value, String what) {
      if (Objects.requireNonNull(value, what).isEmpty()) {
        throw new IllegalArgumentException(what + " must not be empty");
      }
    }
  }
}
