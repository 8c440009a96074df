package io.dra4j.validation;

import io.dra4j.api.device.CapacityRequestPolicy;
import io.dra4j.api.device.Quantity;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The rules of a consumable-capacity request policy. The arithmetic is exact ({@link BigDecimal}),
 * which is what the API server's milli-unit and int64 paths amount to for the values it accepts;
 * values it cannot represent (fractions finer than 1m, integers above int64) are rejected up front.
 */
final class RequestPolicyCheck {
  private static final BigDecimal MAX_INT64 = BigDecimal.valueOf(Long.MAX_VALUE);

  private final Report r;
  private final Optional<String> dev;
  private final String path;
  private final Quantity capacity;

  RequestPolicyCheck(Report r, Optional<String> dev, String path, Quantity capacity) {
    this.r = r;
    this.dev = dev;
    this.path = path;
    this.capacity = capacity;
  }

  void run(CapacityRequestPolicy p) {
    boolean hasValues = !p.validValues().isEmpty();
    boolean hasRange = p.validRange().isPresent();
    if (hasValues && hasRange) {
      r.error(dev, path, "validValues and validRange are mutually exclusive; set one of them");
    }
    if ((hasValues || hasRange) && p.defaultValue().isEmpty()) {
      r.error(dev, path + ".default", "is required when validValues or validRange is set");
    }
    if (!hasValues && !hasRange) {
      p.defaultValue()
          .ifPresent(
              d -> {
                if (d.signum() < 0) {
                  r.error(dev, path + ".default", d + " must not be negative");
                }
                atMostCapacity(path + ".default", d);
              });
    }
    if (hasValues) {
      validValues(p.validValues(), p.defaultValue());
    }
    p.validRange().ifPresent(range -> validRange(range, p.defaultValue()));
  }

  private void validValues(List<Quantity> values, Optional<Quantity> defaultValue) {
    String vp = path + ".validValues";
    if (values.size() > Limits.MAX_REQUEST_POLICY_VALID_VALUES) {
      r.error(
          dev,
          vp,
          "has "
              + values.size()
              + " values, the limit is "
              + Limits.MAX_REQUEST_POLICY_VALID_VALUES);
    }
    for (int i = 0; i < values.size(); i++) {
      Quantity v = values.get(i);
      atMostCapacity(vp + "[" + i + "]", v);
      if (i > 0) {
        int cmp = v.compareTo(values.get(i - 1));
        if (cmp == 0) {
          r.error(dev, vp + "[" + i + "]", "duplicate value " + v);
        } else if (cmp < 0) {
          r.error(
              dev,
              vp + "[" + i + "]",
              v + " is smaller than the value before it; values must be in ascending order");
        }
      }
    }
    defaultValue.ifPresent(
        d -> {
          if (!values.contains(d)) {
            r.error(dev, path + ".default", d + " is not one of validValues");
          }
        });
  }

  private void validRange(CapacityRequestPolicy.Range range, Optional<Quantity> defaultValue) {
    String rp = path + ".validRange";
    Quantity min = range.min();
    if (min.signum() < 0) {
      r.error(dev, rp + ".min", min + " must not be negative");
    }
    atMostCapacity(rp + ".min", min);
    range
        .max()
        .ifPresent(
            max -> {
              if (min.compareTo(max) > 0) {
                r.error(dev, rp + ".max", max + " is smaller than min " + min);
              }
              atMostCapacity(rp + ".max", max);
            });
    defaultValue.ifPresent(
        d -> {
          if (d.compareTo(min) < 0) {
            r.error(dev, path + ".default", d + " is smaller than validRange.min " + min);
          }
          range
              .max()
              .filter(max -> d.compareTo(max) > 0)
              .ifPresent(
                  max ->
                      r.error(dev, path + ".default", d + " is larger than validRange.max " + max));
        });
    range.step().ifPresent(step -> step(rp, min, range.max(), step, defaultValue));
  }

  private void step(
      String rp,
      Quantity min,
      Optional<Quantity> max,
      Quantity step,
      Optional<Quantity> defaultValue) {
    if (step.signum() <= 0) {
      r.error(dev, rp + ".step", step + " must be greater than zero");
      return;
    }
    List<Named> all = new ArrayList<>();
    all.add(new Named(rp + ".min", min));
    max.ifPresent(q -> all.add(new Named(rp + ".max", q)));
    all.add(new Named(rp + ".step", step));
    defaultValue.ifPresent(q -> all.add(new Named(path + ".default", q)));
    boolean fractional = all.stream().anyMatch(n -> !n.q.isInteger());
    boolean unsafe = false;
    for (Named n : all) {
      BigDecimal v = fractional ? n.q.value().movePointRight(3) : n.q.value();
      if (fractional && v.stripTrailingZeros().scale() > 0) {
        r.error(dev, n.path, n.q + " cannot be represented in milli-units (at most 3 decimals)");
        unsafe = true;
      } else if (v.compareTo(MAX_INT64) > 0) {
        r.error(
            dev,
            n.path,
            n.q
                + " is too large for the API server's range arithmetic (int64"
                + (fractional ? " milli-units" : "")
                + ")");
        unsafe = true;
      } else if (v.signum() < 0) {
        r.error(dev, n.path, n.q + " must not be negative when a step is set");
        unsafe = true;
      }
    }
    if (fractional && !unsafe) {
      r.warn(
          dev,
          rp,
          "fractional validRange values need Kubernetes 1.37+ (DRAFractionalCapacityRange);"
              + " older API servers round them to integers");
    }
    if (unsafe) {
      return;
    }
    BigDecimal oneStep = min.value().add(step.value());
    if (oneStep.compareTo(capacity.value()) > 0) {
      r.error(
          dev,
          rp + ".step",
          "min + step = "
              + oneStep.stripTrailingZeros().toPlainString()
              + " is larger than the capacity value "
              + capacity);
    }
    defaultValue.ifPresent(d -> onStep(path + ".default", d, min, step));
    max.ifPresent(q -> onStep(rp + ".max", q, min, step));
  }

  private void onStep(String where, Quantity value, Quantity min, Quantity step) {
    BigDecimal offset = value.value().subtract(min.value());
    if (offset.remainder(step.value()).signum() != 0) {
      r.error(dev, where, value + " is not min + n * step (min " + min + ", step " + step + ")");
    }
  }

  private void atMostCapacity(String where, Quantity q) {
    if (q.compareTo(capacity) > 0) {
      r.error(dev, where, q + " is larger than the capacity value " + capacity);
    }
  }

  private record Named(String path, Quantity q) {}
}
