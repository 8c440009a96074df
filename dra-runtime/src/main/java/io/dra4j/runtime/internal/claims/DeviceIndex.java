package io.dra4j.runtime.internal.claims;

import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.runtime.internal.checkpoint.CheckpointDevice;
import io.dra4j.runtime.internal.checkpoint.ClaimCheckpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The overlap guard: which claim holds which device on this node. Two live claims may hold the same
 * device ({@code pool/device}) only when either allocation has admin access, or when both hold
 * distinct shares of it (different {@code shareID}s of a device that allows multiple allocations).
 * An exclusive hold and a share of the same device conflict. Reservations are all-or-nothing per
 * claim and every method is atomic, so the guard stays exact when claims are prepared in parallel.
 */
final class DeviceIndex {

  private record Holder(ClaimRef claim, boolean adminAccess, Optional<String> shareId) {

    /** Whether this hold and a new one of the same device, by another claim, exclude each other. */
    boolean conflictsWith(ClaimRef other, Optional<String> otherShare) {
      return !adminAccess
          && !claim.uid().equals(other.uid())
          && (shareId.isEmpty() || otherShare.isEmpty() || shareId.equals(otherShare));
    }
  }

  private final Map<String, List<Holder>> byKey = new HashMap<>();
  private final Map<String, List<String>> keysByClaim = new HashMap<>();

  /** A device allocation's identity (with its share): what a claim's result is keyed by. */
  static String key(String pool, String device, Optional<String> shareId) {
    return deviceKey(pool, device) + shareId.map(s -> "#" + s).orElse("");
  }

  private static String deviceKey(String pool, String device) {
    return pool + "/" + device;
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
      for (Holder h : byKey.getOrDefault(deviceKey(d.pool(), d.device()), List.of())) {
        if (h.conflictsWith(claim, d.shareId())) {
          return Optional.of(
              "device "
                  + d.pool()
                  + "/"
                  + d.device()
                  + d.shareId().map(s -> " (share " + s + ")").orElse("")
                  + " is already prepared for claim "
                  + h.claim()
                  + h.shareId().map(s -> " (share " + s + ")").orElse(""));
        }
      }
    }
    release(claim.uid());
    List<String> keys = new ArrayList<>(devices.size());
    for (AllocatedDevice d : devices) {
      hold(claim, d.pool(), d.device(), d.adminAccess(), d.shareId(), keys);
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
        hold(r.claim(), d.pool(), d.device(), d.adminAccess(), d.shareId(), keys);
      }
      keysByClaim.put(r.claim().uid(), keys);
    }
  }

  /** Adds the claim as a holder of the device and its key to {@code keys}. */
  private void hold(
      ClaimRef claim,
      String pool,
      String device,
      boolean adminAccess,
      Optional<String> shareId,
      List<String> keys) {
    String key = deviceKey(pool, device);
    byKey
        .computeIfAbsent(key, k -> new ArrayList<>(1))
        .add(new Holder(claim, adminAccess, shareId));
    keys.add(key);
  }

  /** Claims holding devices. */
  synchronized int claims() {
    return keysByClaim.size();
  }

  /** The claims holding a device ({@code pool/device}), for tests. */
  synchronized List<String> holders(String poolAndDevice) {
    return byKey.getOrDefault(poolAndDevice, List.of()).stream()
        .map(h -> h.claim().uid())
        .distinct()
        .toList();
  }
}
