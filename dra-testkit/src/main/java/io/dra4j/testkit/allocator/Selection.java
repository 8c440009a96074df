package io.dra4j.testkit.allocator;

import io.dra4j.cel.CompiledSelector;
import io.dra4j.cel.SelectorEvaluationException;
import io.dra4j.kube.Node;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Which devices a request can select: the selectors of its class and its own, and per-device node
 * selection. None of it depends on what is allocated, so each answer is cached in the request.
 */
final class Selection {
  private final List<Candidate> candidates;
  private final Node node;

  /** Set once the search failed: selector errors are then collected for the reason, not thrown. */
  private boolean diagnosing;

  /**
   * A selector failed to evaluate for a device the search reached: kube-scheduler's allocator
   * returns that error for the whole claim (no other device is tried), and so does this one.
   */
  static final class SelectorFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String request;

    SelectorFailed(String request, String reason) {
      super(reason, null, false, false);
      this.request = request;
    }
  }

  Selection(List<Candidate> candidates, Node node) {
    this.candidates = candidates;
    this.node = node;
  }

  /** From now on selector errors are remembered for the reason instead of ending the search. */
  void startDiagnosing() {
    diagnosing = true;
  }

  /** Selectors and per-device node selection: independent of what is allocated, so cached. */
  Wanted.Selectable selectable(Wanted w, int index) {
    Wanted.Selectable cached = w.selectable[index];
    if (cached != null) {
      return cached;
    }
    Candidate c = candidates.get(index);
    Wanted.Selectable s;
    if (!evaluate(w, c, w.classSelectors, "device class \"" + w.className() + "\"")) {
      s = Wanted.Selectable.CLASS_SELECTORS;
    } else if (!evaluate(w, c, w.requestSelectors, "the request")) {
      s = Wanted.Selectable.REQUEST_SELECTORS;
    } else if (!c.onNode(node)) {
      s = Wanted.Selectable.NOT_ON_NODE;
    } else {
      s = Wanted.Selectable.SELECTABLE;
    }
    w.selectable[index] = s;
    return s;
  }

  /** The selectors as a user wrote them: {@code a && b}. */
  static String expressions(List<CompiledSelector> selectors) {
    return selectors.stream().map(CompiledSelector::expression).collect(Collectors.joining(" && "));
  }

  /**
   * Whether the device passes the selectors. An evaluation error ends the search for the whole
   * claim ({@link SelectorFailed}); while diagnosing a failed search it is only remembered, so that
   * the reason can name it.
   */
  private boolean evaluate(Wanted w, Candidate c, List<CompiledSelector> list, String owner) {
    for (int i = 0; i < list.size(); i++) {
      try {
        if (!list.get(i).matches(c.cel())) {
          return false;
        }
      } catch (SelectorEvaluationException e) {
        String reason = owner + ": selector #" + i + ": " + e.getMessage();
        w.celErrors.add(reason);
        if (!diagnosing) {
          throw new SelectorFailed(w.resultName(), reason);
        }
        return false;
      }
    }
    return true;
  }
}
