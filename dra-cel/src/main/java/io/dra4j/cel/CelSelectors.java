package io.dra4j.cel;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelIssue;
import dev.cel.common.CelSourceLocation;
import dev.cel.common.CelValidationException;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Compiles Kubernetes DRA device selectors ({@code CELDeviceSelector.expression} of DeviceClasses
 * and claim requests) into {@link CompiledSelector}s, with the CEL environment and semantics of
 * Kubernetes 1.34+.
 *
 * <p>The input is one variable, {@code device} (see {@link CelDevice} for its fields). Beyond
 * standard CEL: {@code cel.bind}, optional syntax ({@code .?id}, {@code orValue()}), the strings
 * and sets extensions, two-variable comprehensions, Kubernetes' quantity library ({@code quantity},
 * {@code isQuantity}, {@code compareTo}, {@code isGreaterThan}, {@code isLessThan}, {@code add},
 * {@code sub}, {@code sign}, {@code isInteger}, {@code asInteger}, {@code asApproximateFloat}), its
 * semver library ({@code semver}, {@code isSemver}, both also with a normalize flag, {@code major},
 * {@code minor}, {@code patch}, {@code compareTo}, {@code isGreaterThan}, {@code isLessThan}) and
 * {@code includes()} for scalar and list attributes.
 *
 * <p>Limits: an expression longer than {@value #MAX_EXPRESSION_LENGTH} bytes (UTF-8) is rejected at
 * compile time. dev.cel 0.14.0 offers no static cost estimation, so the cost limit of {@value
 * #MAX_COST} is enforced at run time, per evaluation ({@link
 * SelectorEvaluationException#costLimitExceeded()}); an expression Kubernetes would reject for its
 * <em>estimated</em> cost may therefore compile here and only fail when a device makes it
 * expensive.
 *
 * <p>Thread-safe. Compiled selectors are cached per expression text in a bounded LRU cache, so
 * callers may simply compile on every use.
 */
public final class CelSelectors {

  /** {@code CELSelectorExpressionMaxLength}: the longest expression, in bytes. */
  public static final int MAX_EXPRESSION_LENGTH = 10 * 1024;

  /** {@code CELSelectorExpressionMaxCost}: the cost limit of one evaluation. */
  public static final long MAX_COST = 1_000_000;

  /** How many compiled expressions a cache keeps by default. */
  public static final int DEFAULT_CACHE_SIZE = 1024;

  private static final class Shared {
    static final CelSelectors INSTANCE = new CelSelectors();
  }

  private final SelectorCache cache;
  private final long costLimit;
  private final AtomicLong compilations = new AtomicLong();

  /** A compiler with a cache of {@value #DEFAULT_CACHE_SIZE} expressions. */
  public CelSelectors() {
    this(DEFAULT_CACHE_SIZE);
  }

  /** A compiler whose cache keeps at most {@code cacheSize} expressions (at least 1). */
  public CelSelectors(int cacheSize) {
    this(cacheSize, MAX_COST);
  }

  CelSelectors(int cacheSize, long costLimit) {
    this.cache = new SelectorCache(cacheSize);
    this.costLimit = costLimit;
  }

  /** One process-wide instance, for callers that do not need their own cache. */
  public static CelSelectors shared() {
    return Shared.INSTANCE;
  }

  /**
   * The compiled form of a selector expression, from the cache when it was compiled before.
   *
   * @throws SelectorCompileException on syntax and type errors (naming line and column), unknown
   *     {@code device} fields, a non-bool result type, and expressions over {@value
   *     #MAX_EXPRESSION_LENGTH} bytes
   */
  public CompiledSelector compile(String expression) {
    Objects.requireNonNull(expression, "expression");
    // Checked before the cache so that oversized texts never become cache keys.
    int bytes = expression.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_EXPRESSION_LENGTH) {
      throw new SelectorCompileException(
          expression,
          "the expression is "
              + bytes
              + " bytes long, more than the limit of "
              + MAX_EXPRESSION_LENGTH
              + " (CELSelectorExpressionMaxLength)",
          0,
          0);
    }
    return cache.get(expression, this::compileUncached);
  }

  private CompiledSelector compileUncached(String expression) {
    compilations.incrementAndGet();
    CelAbstractSyntaxTree ast;
    try {
      ast = SelectorEnvironment.compile(expression);
    } catch (CelValidationException e) {
      throw compileFailure(expression, e);
    }
    try {
      CelRuntime.Program program = SelectorEnvironment.cel().createProgram(ast);
      return new CompiledSelector(expression, program, costLimit);
    } catch (CelEvaluationException e) {
      throw new SelectorCompileException(expression, String.valueOf(e.getMessage()), 0, 0);
    }
  }

  private static SelectorCompileException compileFailure(
      String expression, CelValidationException e) {
    List<CelIssue> issues = e.getErrors();
    if (issues.isEmpty()) {
      return new SelectorCompileException(expression, String.valueOf(e.getMessage()), 0, 0);
    }
    CelIssue first = issues.get(0);
    CelSourceLocation at = first.getSourceLocation();
    String reason = first.getMessage();
    if (issues.size() > 1) {
      reason += " (and " + (issues.size() - 1) + " more error(s))";
    }
    boolean positioned = at != null && at.getLine() > 0;
    return new SelectorCompileException(
        expression, reason, positioned ? at.getLine() : 0, positioned ? at.getColumn() + 1 : 0);
  }

  /** How many expressions this instance has compiled (cache misses); for tests. */
  long compilations() {
    return compilations.get();
  }

  /** How many expressions the cache holds now. */
  int cachedExpressions() {
    return cache.size();
  }
}
