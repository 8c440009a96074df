package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * The core/v1 NodeSelector: the terms are ORed. ResourceSlices allow exactly one term.
 *
 * @param nodeSelectorTerms the terms
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record NodeSelector(List<Term> nodeSelectorTerms) {
  public NodeSelector {
    nodeSelectorTerms = Maps.list(nodeSelectorTerms);
  }

  /** A selector with one term matching {@code metadata.name} = {@code nodeName}. */
  public static NodeSelector forNodeName(String nodeName) {
    return new NodeSelector(
        List.of(
            new Term(
                List.of(), List.of(new Requirement("metadata.name", "In", List.of(nodeName))))));
  }

  /** One term; its requirements are ANDed. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record Term(List<Requirement> matchExpressions, List<Requirement> matchFields) {
    public Term {
      matchExpressions = Maps.list(matchExpressions);
      matchFields = Maps.list(matchFields);
    }
  }

  /** {@code key operator values}; operator is one of In, NotIn, Exists, DoesNotExist, Gt, Lt. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record Requirement(String key, String operator, List<String> values) {
    public Requirement {
      values = Maps.list(values);
    }
  }
}
