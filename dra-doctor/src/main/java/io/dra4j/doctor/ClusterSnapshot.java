package io.dra4j.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.doctor.DoctorReport.Unreadable;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceTaintRule;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Node;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the doctor read, once, before it judges anything: the only part that talks to the API
 * server, and only with GET (the {@code /version} document and one LIST per resource). The
 * judgement ({@link Diagnosis}) is a pure function of this record.
 *
 * @param server the API server's URL
 * @param serverVersion {@code gitVersion} of {@code /version}
 * @param nodes every Node
 * @param pods every Pod
 * @param classes every DeviceClass
 * @param slices every ResourceSlice, as sent (the typed model drops fields it does not know, and
 *     the alpha-field check needs them)
 * @param claims every ResourceClaim, as sent
 * @param taintRules every DeviceTaintRule
 * @param taintRuleVersion the version the rules were read in; empty when the API server serves none
 *     (before 1.35, or with the gate off)
 * @param unreadable what could not be read
 */
record ClusterSnapshot(
    String server,
    Optional<String> serverVersion,
    List<Node> nodes,
    List<Pod> pods,
    List<DeviceClass> classes,
    List<JsonNode> slices,
    List<JsonNode> claims,
    List<DeviceTaintRule> taintRules,
    Optional<String> taintRuleVersion,
    List<Unreadable> unreadable) {

  private static final ObjectMapper JSON = KubeJson.mapper();

  ClusterSnapshot {
    nodes = List.copyOf(nodes);
    pods = List.copyOf(pods);
    classes = List.copyOf(classes);
    slices = List.copyOf(slices);
    claims = List.copyOf(claims);
    taintRules = List.copyOf(taintRules);
    unreadable = List.copyOf(unreadable);
  }

  /**
   * Reads the cluster. Never throws for an API error: a failed read lands in {@link #unreadable}.
   */
  static ClusterSnapshot read(HttpKubeClient client) {
    List<Unreadable> unreadable = new ArrayList<>();
    Optional<String> version = Optional.empty();
    try {
      JsonNode v = JSON.readTree(client.getRaw("/version"));
      version = Optional.of(v.path("gitVersion").asText("")).filter(s -> !s.isEmpty());
    } catch (KubeException e) {
      unreadable.add(new Unreadable("/version", e.getMessage()));
      if (e.status() == 0) {
        // No answer at all: every other read would wait out its retries for nothing.
        for (String what :
            List.of(
                "nodes",
                "pods",
                "deviceclasses.resource.k8s.io",
                "resourceslices.resource.k8s.io",
                "resourceclaims.resource.k8s.io",
                "devicetaintrules.resource.k8s.io")) {
          unreadable.add(new Unreadable(what, "not read: the API server did not answer"));
        }
        return new ClusterSnapshot(
            client.config().server().toString(),
            version,
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            Optional.empty(),
            unreadable);
      }
    } catch (IOException e) {
      unreadable.add(new Unreadable("/version", "not a version document: " + e.getMessage()));
    }
    List<Node> nodes = list(client, Node.TYPE, unreadable);
    List<Pod> pods = list(client, Pod.TYPE, unreadable);
    List<DeviceClass> classes = list(client, DeviceClass.TYPE, unreadable);
    List<JsonNode> slices = list(client, raw(ResourceSlice.TYPE), unreadable);
    List<JsonNode> claims = list(client, raw(ResourceClaim.TYPE), unreadable);
    List<DeviceTaintRule> rules = List.of();
    Optional<String> ruleVersion = Optional.empty();
    List<ResourceType<DeviceTaintRule>> ruleTypes = new ArrayList<>();
    ruleTypes.add(DeviceTaintRule.TYPE);
    ruleTypes.addAll(DeviceTaintRule.OLDER_TYPES);
    for (ResourceType<DeviceTaintRule> type : ruleTypes) {
      try {
        rules = client.list(type, "", ListOptions.ALL).items();
        ruleVersion = Optional.of(type.apiVersion());
        break;
      } catch (KubeException e) {
        if (!e.isNotFound()) {
          unreadable.add(new Unreadable(type.plural() + "." + type.group(), e.getMessage()));
          break;
        }
        // Not served in this version: try the previous one, as the Go client does.
      }
    }
    return new ClusterSnapshot(
        client.config().server().toString(),
        version,
        nodes,
        pods,
        classes,
        slices,
        claims,
        rules,
        ruleVersion,
        unreadable);
  }

  private static <T> List<T> list(KubeClient client, ResourceType<T> type, List<Unreadable> out) {
    try {
      return client.list(type, "", ListOptions.ALL).items();
    } catch (KubeException e) {
      String what = type.group().isEmpty() ? type.plural() : type.plural() + "." + type.group();
      out.add(new Unreadable(what, e.getMessage()));
      return List.of();
    }
  }

  private static ResourceType<JsonNode> raw(ResourceType<?> type) {
    return new ResourceType<>(
        type.group(),
        type.version(),
        type.plural(),
        type.kind(),
        type.namespaced(),
        JsonNode.class);
  }
}
