package io.dra4j.cel;

import dev.cel.common.ast.CelExpr;
import dev.cel.common.values.CelByteString;
import dev.cel.runtime.CelEvaluationListener;
import java.util.Collection;
import java.util.Map;

/**
 * Runtime cost accounting for one evaluation. dev.cel 0.14.0 has no cost estimator, so instead of
 * Kubernetes' static estimate the runtime charges what actually runs: 1 per evaluated expression
 * node other than a literal (including every step of a comprehension), plus 1 per 10 elements or
 * characters of each string, bytes, list or map a node produces (Kubernetes' traversal factor of
 * 0.1), so loops and value doubling are both bounded. Over the limit, the next node aborts the
 * evaluation.
 *
 * <p>One instance per evaluation; not thread-safe.
 */
final class CostTracker implements CelEvaluationListener {

  /** Thrown from the listener to stop the interpreter; carries no stack trace. */
  static final class LimitExceeded extends RuntimeException {
    private static final long serialVersionUID = 1L;

    LimitExceeded(long limit) {
      super("cost limit " + limit + " exceeded", null, false, false);
    }
  }

  private final long limit;
  private long cost;

  CostTracker(long limit) {
    this.limit = limit;
  }

  @Override
  public void callback(CelExpr expr, Object result) {
    // Literals cost nothing, as in Kubernetes; every other node is a step.
    cost += (expr.getKind() == CelExpr.ExprKind.Kind.CONSTANT ? 0 : 1) + sizeCost(result);
    if (cost > limit) {
      throw new LimitExceeded(limit);
    }
  }

  private static long sizeCost(Object result) {
    long size;
    if (result instanceof String s) {
      size = s.length();
    } else if (result instanceof Collection<?> c) {
      size = c.size();
    } else if (result instanceof Map<?, ?> m) {
      size = m.size();
    } else if (result instanceof CelByteString b) {
      size = b.size();
    } else {
      return 0;
    }
    return size / 10;
  }

  /** The cost charged so far. */
  long cost() {
    return cost;
  }

  /**
   * Whether the limit was passed. Checked after evaluation too: CEL's error absorption ({@code true
   * || error}) could otherwise swallow the abort.
   */
  boolean exceeded() {
    return cost > limit;
  }
}
