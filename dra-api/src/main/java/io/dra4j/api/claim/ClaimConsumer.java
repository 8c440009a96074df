package io.dra4j.api.claim;

import java.util.Objects;

/**
 * One consumer the claim is reserved for ({@code status.reservedFor[]}): a Pod, or another object
 * (a PodGroup with {@code DRAWorkloadResourceClaims}).
 */
public final class ClaimConsumer {

  private final String apiGroup;
  private final String resource;
  private final String name;
  private final String uid;

  private ClaimConsumer(Builder b) {
    this.apiGroup = b.apiGroup;
    this.resource = b.resource;
    this.name = b.name;
    this.uid = b.uid;
  }

  /**
   * A builder.
   *
   * @param resource the resource, e.g. {@code pods}
   * @param name the object's name
   * @param uid the object's UID
   */
  public static Builder builder(String resource, String name, String uid) {
    return new Builder(resource, name, uid);
  }

  /** The API group; empty for the core group (Pods). */
  public String apiGroup() {
    return apiGroup;
  }

  public String resource() {
    return resource;
  }

  public String name() {
    return name;
  }

  public String uid() {
    return uid;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ClaimConsumer c
        && apiGroup.equals(c.apiGroup)
        && resource.equals(c.resource)
        && name.equals(c.name)
        && uid.equals(c.uid);
  }

  @Override
  public int hashCode() {
    return Objects.hash(apiGroup, resource, name, uid);
  }

  @Override
  public String toString() {
    return (apiGroup.isEmpty() ? "" : apiGroup + "/") + resource + "/" + name + " (" + uid + ")";
  }

  /** Builds a {@link ClaimConsumer}. Default: the core API group. */
  public static final class Builder {
    private final String resource;
    private final String name;
    private final String uid;
    private String apiGroup = "";

    private Builder(String resource, String name, String uid) {
      this.resource = Objects.requireNonNull(resource, "resource");
      this.name = Objects.requireNonNull(name, "name");
      this.uid = Objects.requireNonNull(uid, "uid");
    }

    public Builder apiGroup(String value) {
      apiGroup = Objects.requireNonNull(value, "apiGroup");
      return this;
    }

    public ClaimConsumer build() {
      return new ClaimConsumer(this);
    }
  }
}
