package io.dra4j.runtime.internal.slices;

import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.Node;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.OwnerReference;
import io.dra4j.kube.Preconditions;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceSliceSpec;
import io.dra4j.runtime.internal.CrashPoints;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings one pool's slices on the API server to its layout, and takes in the server's answers.
 *
 * <p>A sync plans with {@link SyncPlanner} against {@link KnownSlices#view}, then deletes (with uid
 * and resourceVersion preconditions; NotFound is success), updates, creates ({@code generateName}
 * from {@link SliceNames}; the Node as controlling owner for node-local pools, the publisher's
 * owner, if any, for the others). A 409 or 404 re-reads the slice it failed on, so that the retry
 * starts from the server's state.
 *
 * <p><b>Dropped fields.</b> When the API server stores less than was sent (a feature gate is off),
 * it is reported once ({@link PublishListener#onDroppedFields}) and the stored form is adopted for
 * that desired slice, so the same slice is not written again and again.
 *
 * <p>Owned by the publisher's worker thread.
 */
final class SliceWriter {
  private static final Logger LOG = LoggerFactory.getLogger(SlicePublisher.class);

  private final KubeClient client;
  private final String driver;
  private final Optional<String> nodeName;
  private final Optional<OwnerReference> owner;
  private final KnownSlices known;
  private final PublishOutlet outlet;
  // The Node's uid; null until looked up once, when first needed.
  private String ownerUid;
  private final Map<String, Long> generations = new HashMap<>();
  private final Map<String, Map<Integer, Adoption>> adoptions = new HashMap<>();

  SliceWriter(SlicePublisher.Builder b, KnownSlices known, PublishOutlet outlet) {
    this.client = b.client;
    this.driver = b.driver;
    this.nodeName = b.nodeName;
    this.owner = b.owner;
    this.ownerUid = b.ownerUid.orElse(null);
    this.known = known;
    this.outlet = outlet;
  }

  /**
   * Brings one pool to {@code layout} (empty: the pool is gone); returns the number of slices it
   * has now.
   */
  int sync(String pool, List<ResourceSliceSpec> layout) throws KubeException {
    List<ResourceSliceSpec> wanted = adopted(pool, layout);
    List<ResourceSlice> existing = known.view(pool);
    SyncPlan plan = SyncPlanner.plan(pool, wanted, existing, generations.getOrDefault(pool, 0L));
    if (!plan.isEmpty()) {
      LOG.debug(
          "slice publisher {}: pool \"{}\": generation {}, {} delete(s), {} update(s), {}"
              + " create(s)",
          driver,
          pool,
          plan.generation(),
          plan.deletes().size(),
          plan.updates().size(),
          plan.creates().size());
    }
    // A crash test stops the process after the first of these writes (it blocks there).
    for (ResourceSlice s : plan.deletes()) {
      delete(pool, s);
      CrashPoints.reach(CrashPoints.PUBLISH_AFTER_FIRST_WRITE);
    }
    for (SyncPlan.Update u : plan.updates()) {
      ResourceSlice stored = update(pool, u.existing().withSpec(u.spec()));
      written(pool, u.index(), layout, u.spec(), stored);
      CrashPoints.reach(CrashPoints.PUBLISH_AFTER_FIRST_WRITE);
    }
    for (SyncPlan.Create c : plan.creates()) {
      ResourceSlice stored = create(c);
      written(pool, c.index(), layout, c.spec(), stored);
      CrashPoints.reach(CrashPoints.PUBLISH_AFTER_FIRST_WRITE);
    }
    generations.merge(pool, plan.generation(), Math::max);
    return layout.size();
  }

  /** The pool's slices are all gone: no stored form of it is adopted any more. */
  void forget(String pool) {
    adoptions.remove(pool);
  }

  private void delete(String pool, ResourceSlice s) throws KubeException {
    String name = s.metadata().name();
    try {
      client.delete(
          ResourceSlice.TYPE,
          "",
          name,
          new Preconditions(s.metadata().uid(), s.metadata().resourceVersion()));
    } catch (KubeException e) {
      if (!e.isNotFound()) {
        if (e.isConflict()) {
          freshRead(pool, name);
        }
        throw e;
      }
    }
    outlet.deleted();
    known.gone(pool, name, s);
  }

  private ResourceSlice update(String pool, ResourceSlice slice) throws KubeException {
    try {
      ResourceSlice stored = client.update(ResourceSlice.TYPE, slice);
      outlet.updated();
      return stored;
    } catch (KubeException e) {
      if (e.isConflict() || e.isNotFound()) {
        freshRead(pool, slice.metadata().name());
      }
      throw e;
    }
  }

  private ResourceSlice create(SyncPlan.Create c) throws KubeException {
    ResourceSliceSpec spec = c.spec();
    // Node-local slices are owned by their Node, the others by the publisher's owner, if any.
    Optional<OwnerReference> o = owner;
    if (spec.nodeName().isPresent()) {
      o = Optional.of(OwnerReference.node(spec.nodeName().get(), ownerUid()));
    } else if (o.isPresent() && o.get().uid().isEmpty()) {
      o = Optional.of(OwnerReference.node(o.get().name(), ownerUid())); // the Node of nodeName
    }
    String prefix = o.map(OwnerReference::name).orElse(spec.pool().name());
    ObjectMeta meta =
        ObjectMeta.generated(
            "", SliceNames.generateName(c.index(), c.sliceCount(), driver, prefix));
    if (o.isPresent()) {
      meta = meta.withOwnerReferences(List.of(o.get()));
    }
    ResourceSlice stored = client.create(ResourceSlice.TYPE, ResourceSlice.of(meta, spec));
    outlet.created();
    return stored;
  }

  private String ownerUid() throws KubeException {
    if (ownerUid == null) {
      Node node;
      try {
        node = client.get(Node.TYPE, "", nodeName.orElseThrow());
      } catch (KubeException e) {
        if (!e.isNotFound()) {
          throw e;
        }
        // The most common first-run mistake: say what to check, not just "404".
        throw new KubeException(
            e.status(),
            e.reason(),
            "Node \""
                + nodeName.get()
                + "\" does not exist, and a node's ResourceSlices are owned by its Node: check"
                + " --node-name (NODE_NAME, from the pod's spec.nodeName in a DaemonSet); outside"
                + " a cluster, create the Node (the test kit's API server: --node "
                + nodeName.get()
                + "). Publishing starts once it exists",
            e);
      }
      if (node.metadata().uid().isEmpty()) {
        throw new KubeException(
            0, "NoUid", "node " + nodeName.get() + " has no metadata.uid; cannot own slices");
      }
      ownerUid = node.metadata().uid();
    }
    return ownerUid;
  }

  /** After a 409 or 404: read the slice again so the retry starts from the server's state. */
  private void freshRead(String pool, String name) {
    try {
      known.written(pool, client.get(ResourceSlice.TYPE, "", name));
    } catch (KubeException e) {
      if (e.isNotFound()) {
        known.gone(pool, name, null);
      } else {
        LOG.debug("slice publisher {}: re-reading {} failed: {}", driver, name, e.getMessage());
      }
    }
  }

  /** Remembers a write's result and checks whether the API server dropped fields. */
  private void written(
      String pool,
      int index,
      List<ResourceSliceSpec> layout,
      ResourceSliceSpec sent,
      ResourceSlice stored) {
    known.written(pool, stored);
    generations.merge(pool, stored.spec().pool().generation(), Math::max);
    Optional<DroppedFields> dropped = DroppedFields.detect(sent, stored.spec());
    if (dropped.isPresent() && index < layout.size()) {
      adoptions
          .computeIfAbsent(pool, k -> new HashMap<>())
          .put(index, new Adoption(layout.get(index), stored.spec()));
      outlet.droppedFields(pool, index, dropped.get());
    }
  }

  /**
   * A desired slice whose stored form lacks fields the API server dropped.
   *
   * @param desired the layout's spec that was sent
   * @param stored what the API server kept; used instead while the layout asks for {@code desired}
   */
  private record Adoption(ResourceSliceSpec desired, ResourceSliceSpec stored) {}

  private List<ResourceSliceSpec> adopted(String pool, List<ResourceSliceSpec> layout) {
    Map<Integer, Adoption> a = adoptions.get(pool);
    if (a == null || a.isEmpty()) {
      return layout;
    }
    List<ResourceSliceSpec> out = new ArrayList<>(layout);
    Iterator<Map.Entry<Integer, Adoption>> it = a.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Integer, Adoption> e = it.next();
      int i = e.getKey();
      if (i < layout.size()
          && !SliceDiff.needsUpdate(
              layout.get(i), e.getValue().desired().withPool(layout.get(i).pool()))) {
        out.set(i, e.getValue().stored().withPool(layout.get(i).pool()));
      } else {
        it.remove(); // the driver wants something else now: try it
      }
    }
    return out;
  }
}
