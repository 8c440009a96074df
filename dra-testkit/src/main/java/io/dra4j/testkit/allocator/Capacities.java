package io.dra4j.testkit.allocator;

import io.dra4j.api.device.CapacityRequestPolicy;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceCapacity;
import io.dra4j.api.device.Quantity;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Consumable capacity (DRAConsumableCapacity): what one allocation of a device consumes given the
 * request's capacity requests and the device's request policies, and whether the device still has
 * that much.
 *
 * <p>Rules (resource-api-v1.md §1.5): a capacity the request names is rounded up by the policy (to
 * {@code min}, then to {@code min + n*step}; or to the smallest valid value at least as large); a
 * capacity it does not name consumes the policy's default, or the whole capacity without a policy.
 * A result above {@code max} or outside {@code validValues} makes the device unusable for the
 * request, as does a capacity the request names but the device does not have.
 */
final class Capacities {
  private static final String[] DECIMAL = {"", "k", "M", "G", "T", "P", "E"};

  private Capacities() {}

  /**
   * Whether the device fits and what it would consume.
   *
   * @param fits whether the device can take the request
   * @param reason why not, when it does not
   * @param consumed by the capacity key as the device publishes it (what the allocation result
   *     records)
   * @param qualified the same amounts by fully qualified name (what the accounting adds up)
   */
  record Fit(
      boolean fits,
      String reason,
      Map<String, Quantity> consumed,
      Map<String, BigDecimal> qualified) {
    static Fit no(String reason) {
      return new Fit(false, reason, Map.of(), Map.of());
    }
  }

  /**
   * @param requests the request's {@code capacity.requests}
   * @param alreadyConsumed what existing shares of the device consume (fully qualified names)
   * @param allocating what this allocation run has already put on the device (fully qualified)
   */
  static Fit fit(
      String driver,
      Device device,
      Map<String, Quantity> requests,
      Map<String, Quantity> alreadyConsumed,
      Map<String, BigDecimal> allocating) {
    // Device capacities by fully qualified name; an explicit "<driver>/x" wins over "x".
    Map<String, String> deviceKeyOf = new HashMap<>();
    for (String key : device.capacity().keySet()) {
      String q = AllocatedState.qualify(driver, key);
      if (!deviceKeyOf.containsKey(q) || key.indexOf('/') >= 0) {
        deviceKeyOf.put(q, key);
      }
    }
    Map<String, Quantity> requested = new HashMap<>();
    for (Map.Entry<String, Quantity> r : requests.entrySet()) {
      String q = resolve(driver, r.getKey(), device.capacity());
      if (q.isEmpty()) {
        return Fit.no("has no capacity \"" + r.getKey() + "\"");
      }
      if (requested.put(q, r.getValue()) != null) {
        return Fit.no("capacity \"" + q + "\" is requested under two names");
      }
    }
    Map<String, Quantity> consumed = new TreeMap<>();
    Map<String, BigDecimal> qualified = new TreeMap<>();
    for (Map.Entry<String, String> e : new TreeMap<>(deviceKeyOf).entrySet()) {
      String q = e.getKey();
      DeviceCapacity cap = device.capacity().get(e.getValue());
      Optional<CapacityRequestPolicy> policy = cap.requestPolicy();
      Quantity amount = consumption(Optional.ofNullable(requested.get(q)), cap);
      if (amount.signum() < 0) {
        return Fit.no("capacity \"" + e.getValue() + "\" would consume a negative amount");
      }
      if (policy.isPresent() && violates(amount, policy.get())) {
        return Fit.no(
            "capacity \""
                + e.getValue()
                + "\": "
                + amount
                + " is not allowed by the device's request policy");
      }
      BigDecimal total = amount.value();
      Quantity before = alreadyConsumed.get(q);
      if (before != null) {
        total = total.add(before.value());
      }
      BigDecimal pending = allocating.get(q);
      if (pending != null) {
        total = total.add(pending);
      }
      if (total.compareTo(cap.value().value()) > 0) {
        return Fit.no(
            "capacity \""
                + e.getValue()
                + "\": "
                + amount
                + " requested, but only "
                + format(cap.value().value().subtract(total.subtract(amount.value())), cap.value())
                + " of "
                + cap.value()
                + " left");
      }
      consumed.put(e.getValue(), amount);
      qualified.put(q, amount.value());
    }
    return new Fit(true, "", Map.copyOf(consumed), Map.copyOf(qualified));
  }

  /** The fully qualified device capacity a request name refers to, or empty. */
  private static String resolve(
      String driver, String requestName, Map<String, DeviceCapacity> capacity) {
    if (capacity.containsKey(requestName)) {
      return AllocatedState.qualify(driver, requestName);
    }
    int slash = requestName.indexOf('/');
    if (slash >= 0) {
      String domain = requestName.substring(0, slash);
      String id = requestName.substring(slash + 1);
      return domain.equals(driver) && capacity.containsKey(id) ? requestName : "";
    }
    return capacity.containsKey(driver + "/" + requestName) ? driver + "/" + requestName : "";
  }

  /** What one allocation consumes of one capacity. */
  static Quantity consumption(Optional<Quantity> requested, DeviceCapacity cap) {
    Optional<CapacityRequestPolicy> policy = cap.requestPolicy();
    if (requested.isEmpty()) {
      return policy.flatMap(CapacityRequestPolicy::defaultValue).orElse(cap.value());
    }
    Quantity want = requested.get();
    if (policy.isEmpty()) {
      return want;
    }
    CapacityRequestPolicy p = policy.get();
    if (p.validRange().isPresent()) {
      CapacityRequestPolicy.Range range = p.validRange().get();
      if (want.compareTo(range.min()) < 0) {
        return range.min();
      }
      if (range.step().isEmpty()) {
        return want;
      }
      Quantity step = range.step().get();
      BigDecimal steps =
          want.value().subtract(range.min().value()).divide(step.value(), 0, RoundingMode.CEILING);
      BigDecimal value = range.min().value().add(step.value().multiply(steps));
      return value.compareTo(want.value()) == 0 ? want : format(value, step);
    }
    for (Quantity v : p.validValues()) {
      if (want.compareTo(v) <= 0) {
        return v;
      }
    }
    return want;
  }

  private static boolean violates(Quantity amount, CapacityRequestPolicy policy) {
    if (policy.defaultValue().isPresent() && policy.defaultValue().get().equals(amount)) {
      return false;
    }
    if (policy.validRange().isPresent()) {
      CapacityRequestPolicy.Range range = policy.validRange().get();
      if (range.max().isPresent() && amount.compareTo(range.max().get()) > 0) {
        return true;
      }
      if (range.step().isPresent()) {
        BigDecimal offset = amount.value().subtract(range.min().value());
        return offset.remainder(range.step().get().value()).signum() != 0;
      }
      return false;
    }
    List<Quantity> valid = policy.validValues();
    return !valid.isEmpty() && !valid.contains(amount);
  }

  /**
   * A computed amount in the notation the API server would print: binary units when the step is
   * written in binary units, otherwise decimal suffixes.
   */
  static Quantity format(BigDecimal value, Quantity like) {
    String text = like.toString();
    boolean binary = text.endsWith("i");
    BigDecimal v = value.stripTrailingZeros();
    if (binary && v.scale() <= 0 && bitLength(v) < 63) {
      Quantity magnitude = Quantity.ofBytes(v.abs().longValueExact());
      return v.signum() < 0 ? Quantity.parse("-" + magnitude) : magnitude;
    }
    return Quantity.parse(decimal(v));
  }

  private static String decimal(BigDecimal v) {
    if (v.scale() <= 0) {
      BigInteger n = v.toBigIntegerExact();
      BigInteger thousand = BigInteger.valueOf(1000);
      int unit = 0;
      while (n.signum() != 0 && unit < DECIMAL.length - 1 && n.mod(thousand).signum() == 0) {
        n = n.divide(thousand);
        unit++;
      }
      return n + DECIMAL[unit];
    }
    String[] small = {"m", "u", "n"};
    for (int i = 0; i < small.length; i++) {
      BigDecimal scaled = v.movePointRight(3 * (i + 1)).stripTrailingZeros();
      if (scaled.scale() <= 0) {
        return scaled.toBigIntegerExact() + small[i];
      }
    }
    return v.toPlainString();
  }

  /** BigInteger bit length of an integral BigDecimal, for the long range check. */
  private static int bitLength(BigDecimal v) {
    return v.toBigIntegerExact().bitLength();
  }
}
