package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** The core/v1 {@code NodeSelector}: the terms are ORed. ResourceSlices allow exactly one term. */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonAutoDetect(
    fieldVisibility = Visibility.ANY,
    getterVisibility = Visibility.NONE,
    isGetterVisibility = Visibility.NONE)
public final class NodeSelector {
  private final List<Term> nodeSelectorTerms;
  @JsonAnyGetter private final Map<String, Object> unknownFields;

  @JsonCreator
  private NodeSelector(
      @JsonProperty("nodeSelectorTerms") List<Term> nodeSelectorTerms,
      @JsonAnySetter Map<String, Object> unknownFields) {
    this.nodeSelectorTerms = Maps.list(nodeSelectorTerms);
    this.unknownFields = Maps.sorted(unknownFields);
  }

  /** A selector with these terms. */
  public static NodeSelector of(List<Term> terms) {
    return new NodeSelector(terms, Map.of());
  }

  /** A selector with one term matching {@code metadata.name} = {@code nodeName}. */
  public static NodeSelector forNodeName(String nodeName) {
    return of(
        List.of(
            Term.of(List.of(), List.of(Requirement.of("metadata.name", "In", List.of(nodeName))))));
  }

  public List<Term> nodeSelectorTerms() {
    return nodeSelectorTerms;
  }

  /**
   * Fields of a newer Kubernetes that this version does not model, kept for write-back. They are
   * not part of {@code equals}: a newer API server's defaults must not make a stored value differ
   * from the one a driver publishes.
   */
  public Map<String, Object> unknownFields() {
    return unknownFields;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NodeSelector s && nodeSelectorTerms.equals(s.nodeSelectorTerms);
  }

  @Override
  public int hashCode() {
    return Objects.hash(nodeSelectorTerms);
  }

  @Override
  public String toString() {
    return "NodeSelector[nodeSelectorTerms="
        + nodeSelectorTerms
        + Maps.unknown(unknownFields)
        + "]";
  }

  /** One term ({@code NodeSelectorTerm}); its requirements are ANDed. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  @JsonAutoDetect(
      fieldVisibility = Visibility.ANY,
      getterVisibility = Visibility.NONE,
      isGetterVisibility = Visibility.NONE)
  public static final class Term {
    private final List<Requirement> matchExpressions;
    private final List<Requirement> matchFields;
    @JsonAnyGetter private final Map<String, Object> unknownFields;

    @JsonCreator
    private Term(
        @JsonProperty("matchExpressions") List<Requirement> matchExpressions,
        @JsonProperty("matchFields") List<Requirement> matchFields,
        @JsonAnySetter Map<String, Object> unknownFields) {
      this.matchExpressions = Maps.list(matchExpressions);
      this.matchFields = Maps.list(matchFields);
      this.unknownFields = Maps.sorted(unknownFields);
    }

    /**
     * A term.
     *
     * @param matchExpressions requirements on node labels
     * @param matchFields requirements on node fields ({@code metadata.name})
     */
    public static Term of(List<Requirement> matchExpressions, List<Requirement> matchFields) {
      return new Term(matchExpressions, matchFields, Map.of());
    }

    public List<Requirement> matchExpressions() {
      return matchExpressions;
    }

    public List<Requirement> matchFields() {
      return matchFields;
    }

    /**
     * Fields of a newer Kubernetes that this version does not model, kept for write-back. They are
     * not part of {@code equals}: a newer API server's defaults must not make a stored value differ
     * from the one a driver publishes.
     */
    public Map<String, Object> unknownFields() {
      return unknownFields;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Term t
          && matchExpressions.equals(t.matchExpressions)
          && matchFields.equals(t.matchFields);
    }

    @Override
    public int hashCode() {
      return Objects.hash(matchExpressions, matchFields);
    }

    @Override
    public String toString() {
      return "Term[matchExpressions="
          + matchExpressions
          + ", matchFields="
          + matchFields
          + Maps.unknown(unknownFields)
          + "]";
    }
  }

  /**
   * {@code key operator values} ({@code NodeSelectorRequirement}). The operator keeps its spelling:
   * In, NotIn, Exists, DoesNotExist, Gt, Lt, or one of a newer Kubernetes, which matches no node.
   */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  @JsonAutoDetect(
      fieldVisibility = Visibility.ANY,
      getterVisibility = Visibility.NONE,
      isGetterVisibility = Visibility.NONE)
  public static final class Requirement {
    private final String key;
    private final String operator;
    private final List<String> values;
    @JsonAnyGetter private final Map<String, Object> unknownFields;

    @JsonCreator
    private Requirement(
        @JsonProperty("key") String key,
        @JsonProperty("operator") String operator,
        @JsonProperty("values") List<String> values,
        @JsonAnySetter Map<String, Object> unknownFields) {
      this.key = key == null ? "" : key;
      this.operator = operator == null ? "" : operator;
      this.values = Maps.list(values);
      this.unknownFields = Maps.sorted(unknownFields);
    }

    public static Requirement of(String key, String operator, List<String> values) {
      return new Requirement(
          Objects.requireNonNull(key, "key"),
          Objects.requireNonNull(operator, "operator"),
          values,
          Map.of());
    }

    public String key() {
      return key;
    }

    public String operator() {
      return operator;
    }

    public List<String> values() {
      return values;
    }

    /**
     * Fields of a newer Kubernetes that this version does not model, kept for write-back. They are
     * not part of {@code equals}: a newer API server's defaults must not make a stored value differ
     * from the one a driver publishes.
     */
    public Map<String, Object> unknownFields() {
      return unknownFields;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Requirement r
          && key.equals(r.key)
          && operator.equals(r.operator)
          && values.equals(r.values);
    }

    @Override
    public int hashCode() {
      return Objects.hash(key, operator, values);
    }

    @Override
    public String toString() {
      return "Requirement[key="
          + key
          + ", operator="
          + operator
          + ", values="
          + values
          + Maps.unknown(unknownFields)
          + "]";
    }
  }
}
