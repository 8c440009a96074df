package io.dra4j.cel;

import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.types.CelType;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.RuntimeEquality;
import io.dra4j.api.device.Quantity;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * Kubernetes' own CEL libraries that DRA selectors may use, written against the documented
 * semantics of k8s.io/apiserver/pkg/cel/library (quantity, semver) and of the DRA {@code
 * includes()} helper (KEP-6072): declarations for the checker and bindings for the runtime.
 */
final class KubernetesFunctions {

  /** CEL type of {@link Quantity} values (capacities and {@code quantity()} results). */
  static final OpaqueType QUANTITY = OpaqueType.create("kubernetes.Quantity");

  /** CEL type of {@link Semver} values (version attributes and {@code semver()} results). */
  static final OpaqueType SEMVER = OpaqueType.create("kubernetes.Semver");

  private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
  private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

  private KubernetesFunctions() {}

  static List<CelFunctionDecl> declarations() {
    CelType q = QUANTITY;
    CelType s = SEMVER;
    CelType str = SimpleType.STRING;
    CelType bool = SimpleType.BOOL;
    CelType integer = SimpleType.INT;
    return List.of(
        // quantity library
        fn("quantity", global("quantity_string", q, str)),
        fn("isQuantity", global("isQuantity_string", bool, str)),
        fn("sign", member("quantity_sign", integer, q)),
        fn("isInteger", member("quantity_isInteger", bool, q)),
        fn("asInteger", member("quantity_asInteger", integer, q)),
        fn("asApproximateFloat", member("quantity_asApproximateFloat", SimpleType.DOUBLE, q)),
        fn(
            "add",
            member("quantity_add_quantity", q, q, q),
            member("quantity_add_int", q, q, integer)),
        fn(
            "sub",
            member("quantity_sub_quantity", q, q, q),
            member("quantity_sub_int", q, q, integer)),
        // semver library
        fn("semver", global("semver_string", s, str), global("semver_string_bool", s, str, bool)),
        fn(
            "isSemver",
            global("isSemver_string", bool, str),
            global("isSemver_string_bool", bool, str, bool)),
        fn("major", member("semver_major", integer, s)),
        fn("minor", member("semver_minor", integer, s)),
        fn("patch", member("semver_patch", integer, s)),
        // shared member names: the receiver type picks the overload
        fn(
            "compareTo",
            member("quantity_compareTo_quantity", integer, q, q),
            member("semver_compareTo_semver", integer, s, s)),
        fn(
            "isGreaterThan",
            member("quantity_isGreaterThan_quantity", bool, q, q),
            member("semver_isGreaterThan_semver", bool, s, s)),
        fn(
            "isLessThan",
            member("quantity_isLessThan_quantity", bool, q, q),
            member("semver_isLessThan_semver", bool, s, s)),
        // DRA list-type attributes: works on a scalar (equality) and on a list (membership)
        fn("includes", member("dyn_includes_dyn", bool, SimpleType.DYN, SimpleType.DYN)));
  }

  static List<CelFunctionBinding> bindings(RuntimeEquality equality) {
    return List.of(
        CelFunctionBinding.from("quantity_string", String.class, KubernetesFunctions::quantity),
        CelFunctionBinding.from("isQuantity_string", String.class, KubernetesFunctions::isQuantity),
        CelFunctionBinding.from("quantity_sign", Quantity.class, q -> (long) q.signum()),
        CelFunctionBinding.from(
            "quantity_isInteger", Quantity.class, q -> asLong(q.value()) != null),
        CelFunctionBinding.from("quantity_asInteger", Quantity.class, KubernetesFunctions::asInt),
        CelFunctionBinding.from(
            "quantity_asApproximateFloat", Quantity.class, q -> q.value().doubleValue()),
        CelFunctionBinding.from(
            "quantity_add_quantity", Quantity.class, Quantity.class, Quantity::add),
        CelFunctionBinding.from(
            "quantity_add_int", Quantity.class, Long.class, (q, n) -> q.add(Quantity.of(n))),
        CelFunctionBinding.from(
            "quantity_sub_quantity", Quantity.class, Quantity.class, Quantity::subtract),
        CelFunctionBinding.from(
            "quantity_sub_int", Quantity.class, Long.class, (q, n) -> q.subtract(Quantity.of(n))),
        CelFunctionBinding.from(
            "quantity_compareTo_quantity",
            Quantity.class,
            Quantity.class,
            (a, b) -> (long) Integer.signum(a.compareTo(b))),
        CelFunctionBinding.from(
            "quantity_isGreaterThan_quantity",
            Quantity.class,
            Quantity.class,
            (a, b) -> a.compareTo(b) > 0),
        CelFunctionBinding.from(
            "quantity_isLessThan_quantity",
            Quantity.class,
            Quantity.class,
            (a, b) -> a.compareTo(b) < 0),
        CelFunctionBinding.from("semver_string", String.class, s -> semver(s, false)),
        CelFunctionBinding.from(
            "semver_string_bool", String.class, Boolean.class, KubernetesFunctions::semver),
        CelFunctionBinding.from("isSemver_string", String.class, s -> isSemver(s, false)),
        CelFunctionBinding.from(
            "isSemver_string_bool", String.class, Boolean.class, KubernetesFunctions::isSemver),
        CelFunctionBinding.from("semver_major", Semver.class, Semver::major),
        CelFunctionBinding.from("semver_minor", Semver.class, Semver::minor),
        CelFunctionBinding.from("semver_patch", Semver.class, Semver::patch),
        CelFunctionBinding.from(
            "semver_compareTo_semver",
            Semver.class,
            Semver.class,
            (a, b) -> (long) Integer.signum(a.compareTo(b))),
        CelFunctionBinding.from(
            "semver_isGreaterThan_semver",
            Semver.class,
            Semver.class,
            (a, b) -> a.compareTo(b) > 0),
        CelFunctionBinding.from(
            "semver_isLessThan_semver", Semver.class, Semver.class, (a, b) -> a.compareTo(b) < 0),
        CelFunctionBinding.from(
            "dyn_includes_dyn",
            Object.class,
            Object.class,
            (container, value) -> includes(equality, container, value)),
        // `in` on maps, replacing the standard overload: attribute and capacity domains answer
        // "present" only for domains the device has, although indexing any domain yields a map.
        CelFunctionBinding.from(
            "in_map",
            Object.class,
            Map.class,
            (key, map) ->
                map instanceof DomainMap<?> domains
                    ? domains.hasDomain(key)
                    : equality.findInMap(map, key).isPresent()));
  }

  private static Object quantity(String text) throws CelEvaluationException {
    try {
      return Quantity.parse(text);
    } catch (IllegalArgumentException e) {
      throw new CelEvaluationException("quantity(): " + e.getMessage());
    }
  }

  private static boolean isQuantity(String text) {
    try {
      Quantity.parse(text);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** The exact long value, or null when the value is fractional or out of the int64 range. */
  private static Long asLong(BigDecimal v) {
    if (v.compareTo(LONG_MIN) < 0 || v.compareTo(LONG_MAX) > 0) {
      return null;
    }
    BigDecimal stripped = v.stripTrailingZeros();
    if (stripped.scale() > 0) {
      return null;
    }
    return v.longValueExact();
  }

  private static Object asInt(Quantity q) throws CelEvaluationException {
    Long v = asLong(q.value());
    if (v == null) {
      throw new CelEvaluationException(
          "asInteger(): quantity "
              + q
              + " cannot be represented as int64 without overflow or loss of precision"
              + " (check isInteger() first)");
    }
    return v;
  }

  private static Object semver(String text, Boolean normalize) throws CelEvaluationException {
    try {
      return normalize ? Semver.parseNormalized(text) : Semver.parse(text);
    } catch (IllegalArgumentException e) {
      throw new CelEvaluationException("semver(): " + e.getMessage());
    }
  }

  private static boolean isSemver(String text, Boolean normalize) {
    return (normalize ? Semver.tryParseNormalized(text) : Semver.tryParse(text)).isPresent();
  }

  private static boolean includes(RuntimeEquality equality, Object container, Object value) {
    if (container instanceof List<?> list) {
      for (Object element : list) {
        if (equality.objectEquals(element, value)) {
          return true;
        }
      }
      return false;
    }
    return equality.objectEquals(container, value);
  }

  private static CelFunctionDecl fn(String name, CelOverloadDecl... overloads) {
    return CelFunctionDecl.newFunctionDeclaration(name, overloads);
  }

  private static CelOverloadDecl global(String id, CelType result, CelType... params) {
    return CelOverloadDecl.newGlobalOverload(id, result, params);
  }

  private static CelOverloadDecl member(String id, CelType result, CelType... params) {
    return CelOverloadDecl.newMemberOverload(id, result, params);
  }
}
