package io.dra4j.api.claim;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A device as the checkpoint remembers it, handed to {@code unprepare}.
 *
 * @param request base request name
 * @param pool pool name
 * @param device device name
 * @param shareId share id for a shared device
 * @param recorded what {@link PreparedDevice#recorded()} held; empty when prepare never finished
 */
public record RecordedDevice(
    String request,
    String pool,
    String device,
    Optional<String> shareId,
    Map<String, String> recorded) {
  public RecordedDevice {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(shareId, "shareId");
    recorded = Map.copyOf(recorded);
  }
}
