package io.dra4j.api.claim;

import io.dra4j.api.device.NodeSelector;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The whole ResourceClaim as the runtime read it for this prepare, read-only: what a Go driver gets
 * as {@code *resourceapi.ResourceClaim} ({@code k8s.io/dynamic-resource-allocation@v0.37.2
 * kubeletplugin/draplugin.go:146}). The spec is given as the API server's JSON, so every field of a
 * newer Kubernetes is there too.
 */
public final class ClaimView {

  private final ClaimRef ref;
  private final long generation;
  private final Map<String, String> labels;
  private final Map<String, String> annotations;
  private final Supplier<String> specJson;
  private final List<ClaimConsumer> reservedFor;
  private final Optional<NodeSelector> nodeSelector;
  private final Optional<Instant> allocationTimestamp;

  private ClaimView(Builder b) {
    this.ref = b.ref;
    this.generation = b.generation;
    this.labels = Map.copyOf(b.labels);
    this.annotations = Map.copyOf(b.annotations);
    Supplier<String> spec = b.specJson;
    // Computed once, when first asked: most providers never read it, and writing a spec as JSON
    // costs a prepare its first Jackson serializers right after start.
    this.specJson =
        new Supplier<>() {
          private String value;

          @Override
          public synchronized String get() {
            if (value == null) {
              value = Objects.requireNonNull(spec.get(), "specJson");
            }
            return value;
          }
        };
    this.reservedFor = List.copyOf(b.reservedFor);
    this.nodeSelector = b.nodeSelector;
    this.allocationTimestamp = b.allocationTimestamp;
  }

  /** A builder for the claim {@code ref}. */
  public static Builder builder(ClaimRef ref) {
    return new Builder(ref);
  }

  /** Namespace, name and UID. */
  public ClaimRef ref() {
    return ref;
  }

  /** {@code metadata.generation}. */
  public long generation() {
    return generation;
  }

  /** {@code metadata.labels}. */
  public Map<String, String> labels() {
    return labels;
  }

  /** {@code metadata.annotations}. */
  public Map<String, String> annotations() {
    return annotations;
  }

  /**
   * {@code spec} (requests, constraints, configs) as JSON: what the API server returned, written
   * again from dra4j's model (fields this version does not model are kept), when first asked.
   */
  public String specJson() {
    return specJson.get();
  }

  /** {@code status.reservedFor}: the consumers the claim is reserved for, in the server's order. */
  public List<ClaimConsumer> reservedFor() {
    return reservedFor;
  }

  /** {@code status.allocation.nodeSelector}: where the allocation can be used. */
  public Optional<NodeSelector> nodeSelector() {
    return nodeSelector;
  }

  /** {@code status.allocation.allocationTimestamp}: when the scheduler allocated the claim. */
  public Optional<Instant> allocationTimestamp() {
    return allocationTimestamp;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ClaimView v
        && ref.equals(v.ref)
        && generation == v.generation
        && labels.equals(v.labels)
        && annotations.equals(v.annotations)
        && specJson().equals(v.specJson())
        && reservedFor.equals(v.reservedFor)
        && nodeSelector.equals(v.nodeSelector)
        && allocationTimestamp.equals(v.allocationTimestamp);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        ref,
        generation,
        labels,
        annotations,
        specJson(),
        reservedFor,
        nodeSelector,
        allocationTimestamp);
  }

  @Override
  public String toString() {
    return "ClaimView[" + ref + ", generation " + generation + ", reservedFor " + reservedFor + "]";
  }

  /**
   * Builds a {@link ClaimView}. Defaults: generation 0, no labels, no annotations, spec {@code {}},
   * reserved for nobody, no node selector, no allocation timestamp.
   */
  public static final class Builder {
    private final ClaimRef ref;
    private long generation;
    private Map<String, String> labels = Map.of();
    private Map<String, String> annotations = Map.of();
    private Supplier<String> specJson = () -> "{}";
    private List<ClaimConsumer> reservedFor = List.of();
    private Optional<NodeSelector> nodeSelector = Optional.empty();
    private Optional<Instant> allocationTimestamp = Optional.empty();

    private Builder(ClaimRef ref) {
      this.ref = Objects.requireNonNull(ref, "ref");
    }

    public Builder generation(long value) {
      generation = value;
      return this;
    }

    public Builder labels(Map<String, String> value) {
      labels = Map.copyOf(value);
      return this;
    }

    public Builder annotations(Map<String, String> value) {
      annotations = Map.copyOf(value);
      return this;
    }

    public Builder specJson(String value) {
      Objects.requireNonNull(value, "specJson");
      specJson = () -> value;
      return this;
    }

    /** The spec as JSON, computed when {@link ClaimView#specJson()} is first called (once). */
    public Builder specJson(Supplier<String> value) {
      specJson = Objects.requireNonNull(value, "specJson");
      return this;
    }

    public Builder reservedFor(List<ClaimConsumer> value) {
      reservedFor = List.copyOf(value);
      return this;
    }

    public Builder nodeSelector(NodeSelector value) {
      nodeSelector = Optional.of(value);
      return this;
    }

    public Builder allocationTimestamp(Instant value) {
      allocationTimestamp = Optional.of(value);
      return this;
    }

    public ClaimView build() {
      return new ClaimView(this);
    }
  }
}
