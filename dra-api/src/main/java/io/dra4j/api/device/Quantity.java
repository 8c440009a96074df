package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes resource quantity such as {@code 80Gi}, {@code 500m} or {@code 1e3}.
 *
 * <p>Two quantities are equal when they denote the same number, whatever their notation: the API
 * server rewrites quantities into canonical form ({@code 1024Mi} comes back as {@code 1Gi}), and
 * comparing by text would make every publish look like a change. The original text is kept for
 * serialization.
 */
public final class Quantity implements Comparable<Quantity> {

  private static final Pattern SYNTAX =
      Pattern.compile(
          "([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?");

  /** Largest decimal exponent accepted ({@code 1e64}): far beyond any device's capacity. */
  private static final int MAX_EXPONENT = 64;

  private static final String[] BINARY = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  private static final BigInteger KI = BigInteger.valueOf(1024);

  private final String text;
  private final BigDecimal value;

  private Quantity(String text, BigDecimal value) {
    this.text = text;
    this.value = value;
  }

  /**
   * Parses the Kubernetes quantity syntax: a signed decimal number followed by a binary suffix (Ki
   * … Ei), a decimal suffix (n, u, m, k, M, G, T, P, E) or a decimal exponent ({@code e3}).
   *
   * @throws IllegalArgumentException naming the text and the rule when the syntax is wrong
   */
  @JsonCreator
  public static Quantity parse(String text) {
    Objects.requireNonNull(text, "quantity");
    Matcher m = SYNTAX.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "invalid quantity \""
              + text
              + "\": must be a decimal number with an optional suffix"
              + " (Ki, Mi, Gi, Ti, Pi, Ei, n, u, m, k, M, G, T, P, E or an exponent such as e3)");
    }
    BigDecimal number = new BigDecimal(m.group(1));
    String suffix = m.group(2) == null ? "" : m.group(2);
    return new Quantity(text, number.multiply(multiplier(text, suffix)));
  }

  /**
   * A plain integer quantity such as {@code 8}. Also how a bare JSON or YAML number ({@code
   * example.com/gpu: 1}) reads: the API server accepts numbers where quantities go.
   */
  @JsonCreator
  public static Quantity of(long value) {
    return new Quantity(Long.toString(value), BigDecimal.valueOf(value));
  }

  /** A bare decimal number such as {@code 0.5}, as JSON or YAML may carry it. */
  @JsonCreator
  public static Quantity of(BigDecimal value) {
    return fromValue(value);
  }

  /**
   * A byte count in the largest binary unit that represents it exactly ({@code 80Gi}, {@code
   * 1536Mi}), the form the API server itself prints for BinarySI quantities.
   */
  public static Quantity ofBytes(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("byte count must not be negative: " + bytes);
    }
    BigInteger n = BigInteger.valueOf(bytes);
    int unit = 0;
    while (n.signum() != 0 && unit < BINARY.length - 1 && n.mod(KI).signum() == 0) {
      n = n.divide(KI);
      unit++;
    }
    return new Quantity(n + BINARY[unit], BigDecimal.valueOf(bytes));
  }

  private static BigDecimal multiplier(String text, String suffix) {
    switch (suffix) {
      case "":
        return BigDecimal.ONE;
      case "n":
        return BigDecimal.ONE.scaleByPowerOfTen(-9);
      case "u":
        return BigDecimal.ONE.scaleByPowerOfTen(-6);
      case "m":
        return BigDecimal.ONE.scaleByPowerOfTen(-3);
      case "k":
        return BigDecimal.ONE.scaleByPowerOfTen(3);
      case "M":
        return BigDecimal.ONE.scaleByPowerOfTen(6);
      case "G":
        return BigDecimal.ONE.scaleByPowerOfTen(9);
      case "T":
        return BigDecimal.ONE.scaleByPowerOfTen(12);
      case "P":
        return BigDecimal.ONE.scaleByPowerOfTen(15);
      case "E":
        return BigDecimal.ONE.scaleByPowerOfTen(18);
      default:
        for (int i = 1; i < BINARY.length; i++) {
          if (BINARY[i].equals(suffix)) {
            return new BigDecimal(KI.pow(i));
          }
        }
        // Decimal exponent, e.g. e3 or E-2. Bounded: a huge exponent is cheap to write but makes
        // every later sum or comparison materialise a number of that many digits.
        String digits = suffix.substring(1);
        int exponent;
        try {
          exponent = Integer.parseInt(digits);
        } catch (NumberFormatException e) {
          exponent = Integer.MAX_VALUE;
        }
        if (Math.abs(exponent) > MAX_EXPONENT) {
          throw new IllegalArgumentException(
              "invalid quantity \""
                  + text
                  + "\": the exponent must be between -"
                  + MAX_EXPONENT
                  + " and "
                  + MAX_EXPONENT);
        }
        return BigDecimal.ONE.scaleByPowerOfTen(exponent);
    }
  }

  /** The exact numeric value. */
  public BigDecimal value() {
    return value;
  }

  /** Whether the value is a whole number. */
  public boolean isInteger() {
    return value.stripTrailingZeros().scale() <= 0;
  }

  /**
   * The value as a {@code long}, rounded up to the next integer like the API server's {@code
   * Value()}.
   *
   * @throws ArithmeticException when the value does not fit in a long
   */
  public long longValue() {
    return value.setScale(0, RoundingMode.CEILING).longValueExact();
  }

  /** The sum of both quantities, written as a plain decimal number. */
  public Quantity add(Quantity other) {
    return fromValue(value.add(other.value));
  }

  /** The difference of both quantities, written as a plain decimal number. */
  public Quantity subtract(Quantity other) {
    return fromValue(value.subtract(other.value));
  }

  /** -1, 0 or 1. */
  public int signum() {
    return value.signum();
  }

  private static Quantity fromValue(BigDecimal v) {
    BigDecimal plain = v.stripTrailingZeros();
    if (plain.scale() < 0) {
      plain = plain.setScale(0);
    }
    return new Quantity(plain.toPlainString(), v);
  }

  @Override
  public int compareTo(Quantity other) {
    return value.compareTo(other.value);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Quantity q && value.compareTo(q.value) == 0;
  }

  @Override
  public int hashCode() {
    return value.signum() == 0 ? 0 : value.stripTrailingZeros().hashCode();
  }

  /** The text as written, e.g. {@code 80Gi}. */
  @JsonValue
  @Override
  public String toString() {
    return text;
  }
}
