package io.dra4j.api.status;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Network facts about an allocated device: the resource.k8s.io/v1 {@code NetworkDeviceData}. Read
 * back from claims too, so fields of a newer Kubernetes are kept ({@link #unknownFields()}).
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonAutoDetect(
    fieldVisibility = Visibility.ANY,
    getterVisibility = Visibility.NONE,
    isGetterVisibility = Visibility.NONE)
public final class NetworkDeviceData {
  private final String interfaceName;
  private final List<String> ips;
  private final String hardwareAddress;
  @JsonAnyGetter private final Map<String, Object> unknownFields;

  @JsonCreator
  private NetworkDeviceData(
      @JsonProperty("interfaceName") String interfaceName,
      @JsonProperty("ips") List<String> ips,
      @JsonProperty("hardwareAddress") String hardwareAddress,
      @JsonAnySetter Map<String, Object> unknownFields) {
    this.interfaceName = interfaceName == null ? "" : interfaceName;
    this.ips = ips == null ? List.of() : List.copyOf(ips);
    this.hardwareAddress = hardwareAddress == null ? "" : hardwareAddress;
    this.unknownFields =
        unknownFields == null || unknownFields.isEmpty()
            ? Map.of()
            : Collections.unmodifiableMap(new TreeMap<>(unknownFields));
  }

  /** A builder; everything is empty unless set. */
  public static Builder builder() {
    return new Builder();
  }

  /** At most 256 bytes; empty when unknown. */
  public String interfaceName() {
    return interfaceName;
  }

  /** At most 16 unique interface addresses in CIDR form, e.g. {@code 192.0.2.5/24}. */
  public List<String> ips() {
    return ips;
  }

  /** At most 128 bytes; empty when unknown. */
  public String hardwareAddress() {
    return hardwareAddress;
  }

  /**
   * Fields of a newer Kubernetes that this version does not model, kept for write-back. They are
   * not part of {@code equals}: a newer API server's defaults must not make a stored value differ
   * from the one a driver publishes.
   */
  public Map<String, Object> unknownFields() {
    return unknownFields;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NetworkDeviceData n
        && interfaceName.equals(n.interfaceName)
        && ips.equals(n.ips)
        && hardwareAddress.equals(n.hardwareAddress);
  }

  @Override
  public int hashCode() {
    return Objects.hash(interfaceName, ips, hardwareAddress);
  }

  @Override
  public String toString() {
    return "NetworkDeviceData[interfaceName="
        + interfaceName
        + ", ips="
        + ips
        + ", hardwareAddress="
        + hardwareAddress
        + (unknownFields.isEmpty() ? "" : ", unknownFields=" + unknownFields)
        + "]";
  }

  /** Builds {@link NetworkDeviceData}. */
  public static final class Builder {
    private String interfaceName = "";
    private final List<String> ips = new ArrayList<>();
    private String hardwareAddress = "";

    private Builder() {}

    public Builder interfaceName(String value) {
      interfaceName = Objects.requireNonNull(value, "interfaceName");
      return this;
    }

    /** Adds interface addresses in CIDR form. */
    public Builder ips(List<String> values) {
      ips.addAll(values);
      return this;
    }

    public Builder hardwareAddress(String value) {
      hardwareAddress = Objects.requireNonNull(value, "hardwareAddress");
      return this;
    }

    public NetworkDeviceData build() {
      return new NetworkDeviceData(interfaceName, ips, hardwareAddress, Map.of());
    }
  }
}
