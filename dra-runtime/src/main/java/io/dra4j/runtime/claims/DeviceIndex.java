package io.dra4j.runtime.claims;

import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.runtime.checkpoint.CheckpointDevice;
import io.dra4j.runtime.checkpoint.ClaimCheckpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The overlap guard: which claim holds which device on this node. A device ({@code pool/device},
 * plus {@code #shareID} for a share of a multi-allocatable device) is refused to a second claim
 * unless either allocation has admin access. Reservations are all-or-nothing per claim and every
 * method is atomic, so the guard stays exact when claims are prepared in parallel.
 */
final class DeviceIndex {

  private record Holder(ClaimRef claim, boolean adminAccess) {}

  private final Map<String, List<Holder>> byKey = new HashMap<>();
  private final Map<String, List<String>> keysByClaim = new HashMap<>();

  static String key(String pool, String device, Optional<String> shareId) {
    return pool + "/" + device + shareId.map(s -> "#" + s).orElse("");
  }

  /**
   * Reserves the claim's devices, or none of them.
   *
   * @return the refusal, naming the device and the claim holding it; empty when reserved
   */
  synchronized Optional<String> reserve(ClaimRef claim, List<AllocatedDevice> devices) {
    for (AllocatedDevice d : devices) {
      if (d.adminAccess()) {
        continue;
      }
      String key = key(d.pool(), d.device(), d.shareId());
      for (Holder h : byKey.getOrDefault(key, List.of())) {
        if (!h.adminAccess() && !h.claim().uid().equals(claim.uid())) {
          return Optional.of(
              "device "
                  + d.pool()
                  + "/"
                  + d.device()
                  + d.shareId().map(s -> " (share " + s + ")").orElse("")
                  + " is already prepared for claim "
                  + h.claim());
        }
      }
    }
    release(claim.uid());
    List<String> keys = new ArrayList<>(devices.size());
    for (AllocatedDevice d : devices) {
      String key = key(d.pool(), d.device(), d.shareId());
      byKey.computeIfAbsent(key, k -> new ArrayList<>(1)).add(new Holder(claim, d.adminAccess()));
      keys.add(key);
    }
    keysByClaim.put(claim.uid(), keys);
    return Optional.empty();
  }

  /** Releases every device of the claim. Idempotent. */
  synchronized void release(String claimUid) {
    List<String> keys = keysByClaim.remove(claimUid);
    if (keys == null) {
      return;
    }
    for (String key : keys) {
      List<Holder> holders = byKey.get(key);
      if (holders == null) {
        continue;
      }
      holders.removeIf(h -> h.claim().uid().equals(claimUid));
      if (holders.isEmpty()) {
        byKey.remove(key);
      }
    }
  }

  /** Replaces the whole index with the devices of the given records (started ones included). */
  synchronized void rebuild(List<ClaimCheckpoint> records) {
    byKey.clear();
    keysByClaim.clear();
    for (ClaimCheckpoint r : records) {
      List<String> keys = new ArrayList<>(r.devices().size());
      for (CheckpointDevice d : r.devices()) {
        String key = key(d.pool(), d.device(), d.shareId());
        byKey
            .computeIfAbsent(key, k -> new ArrayList<>(1))
            .add(new Holder(r.claim(), d.adminAccess()));
        keys.add(key);
      }
      keysByClaim.put(r.claim().uid(), keys);
    }
  }

  /** Claims holding devices. */
  synchronized int claims() {
    return keysByClaim.size();
  }

  /** The claims holding a key, for tests. */
  synchronized List<String> holders(String key) {
    return byKey.getOrDefault(key, List.of()).stream().map(h -> h.claim().uid()).toList();
  }
}
