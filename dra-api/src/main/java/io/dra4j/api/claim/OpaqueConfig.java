package io.dra4j.api.claim;

import java.util.List;
import java.util.Objects;

/**
 * One opaque config of this driver that applies to an allocated device, as the allocation carries
 * it ({@code status.allocation.devices.config[]} with {@code opaque.driver} this driver). A config
 * applies when its {@code requests} is empty or names the device's request or {@code
 * request/subrequest} ({@code k8s.io/dynamic-resource-allocation@v0.37.2
 * resourceclaim/resourceclaim.go:265-290}).
 *
 * <p>{@link PrepareRequest#configs} lists them in the allocation's order: the DeviceClass's configs
 * first, then the claim's. Which of them a driver honours, and how it merges them, is the driver's
 * choice; the runtime's own choice is the last one, decoded into {@link AllocatedDevice#config()}
 * for a provider that implements {@code TypedConfig}.
 */
public final class OpaqueConfig {

  /** Where a config comes from. */
  public enum Source {
    /** The DeviceClass ({@code FromClass}). */
    CLASS,
    /**
     * The claim ({@code FromClaim}). A source a newer Kubernetes adds counts as this one: like the
     * claim's, its configs come after the class's.
     */
    CLAIM
  }

  private final Source source;
  private final List<String> requests;
  private final String parametersJson;

  private OpaqueConfig(Builder b) {
    this.source = b.source;
    this.requests = List.copyOf(b.requests);
    this.parametersJson = b.parametersJson;
  }

  /**
   * A builder.
   *
   * @param source where the config comes from
   * @param parametersJson {@code opaque.parameters}, JSON
   */
  public static Builder builder(Source source, String parametersJson) {
    return new Builder(source, parametersJson);
  }

  public Source source() {
    return source;
  }

  /** The requests it names ({@code request} or {@code request/subrequest}); empty means all. */
  public List<String> requests() {
    return requests;
  }

  /** {@code opaque.parameters} as JSON, exactly as the API server returned it. */
  public String parametersJson() {
    return parametersJson;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OpaqueConfig c
        && source == c.source
        && requests.equals(c.requests)
        && parametersJson.equals(c.parametersJson);
  }

  @Override
  public int hashCode() {
    return Objects.hash(source, requests, parametersJson);
  }

  @Override
  public String toString() {
    return "OpaqueConfig[source="
        + source
        + ", requests="
        + requests
        + ", parameters="
        + parametersJson
        + "]";
  }

  /** Builds an {@link OpaqueConfig}. Default: no requests (the config applies to all). */
  public static final class Builder {
    private final Source source;
    private final String parametersJson;
    private List<String> requests = List.of();

    private Builder(Source source, String parametersJson) {
      this.source = Objects.requireNonNull(source, "source");
      this.parametersJson = Objects.requireNonNull(parametersJson, "parametersJson");
    }

    public Builder requests(List<String> value) {
      requests = List.copyOf(value);
      return this;
    }

    public OpaqueConfig build() {
      return new OpaqueConfig(this);
    }
  }
}
