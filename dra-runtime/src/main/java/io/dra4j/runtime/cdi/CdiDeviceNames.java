package io.dra4j.runtime.cdi;

import io.dra4j.api.claim.AllocatedDevice;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Names the CDI devices of one claim's spec.
 *
 * <ul>
 *   <li>{@code <claimUID>-<device>} for a device allocated whole;
 *   <li>{@code <claimUID>-<device>-<first 8 characters of the shareID>} for a share of a device
 *       that allows multiple allocations (share ids are random UUIDs, so the prefix tells the
 *       shares of one device apart while keeping the name short);
 *   <li>if two allocations of the claim would still get the same name (the same device name in two
 *       pools, two shares whose ids start alike, the same device in two admin-access requests),
 *       each of them gets {@code -<8 hex digits>} appended, a hash of its request, pool, device and
 *       share id, so names stay deterministic whatever the order of the allocation.
 * </ul>
 *
 * The claim UID keeps names unique across claims; the names are recorded in the checkpoint, so a
 * repeated prepare answers with the same ids.
 */
final class CdiDeviceNames {
  static final int SHARE_ID_PREFIX = 8;

  private CdiDeviceNames() {}

  /** One name per device, in order. */
  static List<String> assign(String claimUid, List<AllocatedDevice> devices) {
    List<String> names = new ArrayList<>(devices.size());
    Map<String, Integer> counts = new HashMap<>();
    for (AllocatedDevice d : devices) {
      String name = preferred(claimUid, d);
      names.add(name);
      counts.merge(name, 1, Integer::sum);
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      if (counts.get(name) > 1) {
        name = name + "-" + hash(devices.get(i));
        names.set(i, name);
      }
      if (!seen.add(name)) {
        throw new IllegalArgumentException(
            "allocation "
                + devices.get(i).request()
                + " -> "
                + devices.get(i).key()
                + " appears twice in claim "
                + claimUid);
      }
      CdiRules.checkDeviceName(name);
    }
    return names;
  }

  private static String preferred(String claimUid, AllocatedDevice d) {
    String base = claimUid + "-" + d.device();
    return d.shareId()
        .map(s -> base + "-" + s.substring(0, Math.min(SHARE_ID_PREFIX, s.length())))
        .orElse(base);
  }

  private static String hash(AllocatedDevice d) {
    String key = d.request() + "\n" + d.pool() + "\n" + d.device() + "\n" + d.shareId().orElse("");
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }
}
