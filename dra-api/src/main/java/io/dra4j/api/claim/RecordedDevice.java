package io.dra4j.api.claim;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** A device as the checkpoint remembers it, handed to {@code unprepare}. */
public final class RecordedDevice {
  private final String request;
  private final String pool;
  private final String device;
  private final Optional<String> shareId;
  private final Map<String, String> recorded;

  private RecordedDevice(
      String request,
      String pool,
      String device,
      Optional<String> shareId,
      Map<String, String> recorded) {
    this.request = Objects.requireNonNull(request, "request");
    this.pool = Objects.requireNonNull(pool, "pool");
    this.device = Objects.requireNonNull(device, "device");
    this.shareId = shareId;
    this.recorded = Map.copyOf(recorded);
  }

  /**
   * A device with nothing recorded and no share id.
   *
   * @param request base request name
   * @param pool pool name
   * @param device device name
   */
  public static RecordedDevice of(String request, String pool, String device) {
    return new RecordedDevice(request, pool, device, Optional.empty(), Map.of());
  }

  /** The device as {@code prepare} left it: its allocation and what the provider recorded. */
  public static RecordedDevice of(PreparedDevice prepared) {
    AllocatedDevice d = prepared.device();
    return new RecordedDevice(d.request(), d.pool(), d.device(), d.shareId(), prepared.recorded());
  }

  /** This device with the share id of a shared device. */
  public RecordedDevice withShareId(String value) {
    return new RecordedDevice(request, pool, device, Optional.of(value), recorded);
  }

  /** This device with what the provider recorded instead of its own. */
  public RecordedDevice withRecorded(Map<String, String> value) {
    return new RecordedDevice(request, pool, device, shareId, value);
  }

  /** Base request name. */
  public String request() {
    return request;
  }

  /** Pool name. */
  public String pool() {
    return pool;
  }

  /** Device name. */
  public String device() {
    return device;
  }

  /** Share id for a shared device. */
  public Optional<String> shareId() {
    return shareId;
  }

  /** What {@link PreparedDevice#recorded()} held; empty when prepare never finished. */
  public Map<String, String> recorded() {
    return recorded;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RecordedDevice r
        && request.equals(r.request)
        && pool.equals(r.pool)
        && device.equals(r.device)
        && shareId.equals(r.shareId)
        && recorded.equals(r.recorded);
  }

  @Override
  public int hashCode() {
    return Objects.hash(request, pool, device, shareId, recorded);
  }

  @Override
  public String toString() {
    return "RecordedDevice[request="
        + request
        + ", pool="
        + pool
        + ", device="
        + device
        + ", shareId="
        + shareId
        + ", recorded="
        + recorded
        + "]";
  }
}
