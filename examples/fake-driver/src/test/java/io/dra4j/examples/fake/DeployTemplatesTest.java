package io.dra4j.examples.fake;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dra4j.api.device.Device;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.cel.CelSelectors;
import io.dra4j.fake.FakeDeviceProvider;
import io.dra4j.launcher.DriverSettings;
import io.dra4j.runtime.cdi.CdiSpecWriter;
import io.dra4j.runtime.internal.kubelet.SocketNames;
import io.dra4j.testkit.schema.OpenApiSchemas;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The deployment templates vendors copy: they must parse as Kubernetes YAML, and the parts that the
 * API and the kubelet check (RBAC on claim status, the VAP's node binding, the DeviceClass, the
 * DaemonSet's flags and mounts) must use the names the reference gives.
 */
class DeployTemplatesTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** Every document of every template, keyed by kind (several of a kind in a list). */
  private static Map<String, List<JsonNode>> load(String example) throws IOException {
    Path dir = Path.of("..", example, "deploy");
    Map<String, List<JsonNode>> byKind = new HashMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
        try (var parser = YAML.getFactory().createParser(f.toFile())) {
          for (JsonNode doc : YAML.readValues(parser, JsonNode.class).readAll()) {
            assertThat(doc.path("apiVersion").asText()).as(f + " apiVersion").isNotEmpty();
            assertThat(doc.path("metadata").path("name").asText()).as(f + " name").isNotEmpty();
            byKind.computeIfAbsent(doc.path("kind").asText(), k -> new ArrayList<>()).add(doc);
          }
        }
      }
    }
    return byKind;
  }

  @ParameterizedTest
  @ValueSource(strings = {"fake-driver", "nvidia-driver"})
  void rbacGrantsWhatANodeLocalDriverNeedsAndNoMore(String example) throws IOException {
    Map<String, List<JsonNode>> docs = load(example);
    JsonNode daemonSet = docs.get("DaemonSet").get(0);
    String driver = env(daemonSet, "DRIVER_NAME");
    JsonNode role = docs.get("ClusterRole").get(0);
    Map<String, List<String>> verbs = new HashMap<>();
    Map<String, List<String>> names = new HashMap<>();
    for (JsonNode rule : role.path("rules")) {
      for (JsonNode resource : rule.path("resources")) {
        List<String> v = new ArrayList<>();
        rule.path("verbs").forEach(x -> v.add(x.asText()));
        verbs.put(resource.asText(), v);
        List<String> n = new ArrayList<>();
        rule.path("resourceNames").forEach(x -> n.add(x.asText()));
        names.put(resource.asText(), n);
      }
    }
    assertThat(verbs.get("resourceslices"))
        .contains("get", "list", "watch", "create", "update", "delete");
    assertThat(verbs.get("resourceclaims")).containsExactlyInAnyOrder("get", "list", "watch");
    // resource-api-v1.md §2.4: status.devices needs resourceclaims/status and, since 1.36,
    // associated-node verbs on resourceclaims/driver for this driver only.
    assertThat(verbs.get("resourceclaims/status")).contains("patch", "update");
    assertThat(verbs.get("resourceclaims/driver"))
        .containsExactlyInAnyOrder("associated-node:patch", "associated-node:update");
    assertThat(names.get("resourceclaims/driver")).containsExactly(driver);
    assertThat(verbs.get("deviceclasses")).contains("get", "list", "watch");
    assertThat(verbs.get("nodes")).contains("get");

    JsonNode binding = docs.get("ClusterRoleBinding").get(0);
    JsonNode subject = binding.path("subjects").get(0);
    JsonNode podSpec = daemonSet.path("spec").path("template").path("spec");
    assertThat(subject.path("name").asText())
        .isEqualTo(podSpec.path("serviceAccountName").asText());
    assertThat(subject.path("namespace").asText())
        .isEqualTo(daemonSet.path("metadata").path("namespace").asText());
    assertThat(binding.path("roleRef").path("name").asText())
        .isEqualTo(role.path("metadata").path("name").asText());
  }

  @ParameterizedTest
  @ValueSource(strings = {"fake-driver", "nvidia-driver"})
  void admissionPolicyConfinesTheDriverToItsOwnNode(String example) throws IOException {
    Map<String, List<JsonNode>> docs = load(example);
    JsonNode daemonSet = docs.get("DaemonSet").get(0);
    JsonNode policy = docs.get("ValidatingAdmissionPolicy").get(0);
    JsonNode rule = policy.path("spec").path("matchConstraints").path("resourceRules").get(0);
    assertThat(rule.path("apiGroups").get(0).asText()).isEqualTo("resource.k8s.io");
    assertThat(rule.path("resources").get(0).asText()).isEqualTo("resourceslices");
    assertThat(rule.toString()).contains("CREATE", "UPDATE", "DELETE");
    String serviceAccount =
        "system:serviceaccount:"
            + daemonSet.path("metadata").path("namespace").asText()
            + ":"
            + daemonSet
                .path("spec")
                .path("template")
                .path("spec")
                .path("serviceAccountName")
                .asText();
    assertThat(policy.path("spec").path("matchConditions").toString()).contains(serviceAccount);
    String all = policy.path("spec").toString();
    assertThat(all).contains("authentication.kubernetes.io/node-name").contains("nodeName");
    assertThat(policy.path("spec").path("failurePolicy").asText()).isEqualTo("Fail");

    JsonNode binding = docs.get("ValidatingAdmissionPolicyBinding").get(0);
    assertThat(binding.path("spec").path("policyName").asText())
        .isEqualTo(policy.path("metadata").path("name").asText());
    assertThat(binding.path("spec").path("validationActions").toString()).contains("Deny");
  }

  @ParameterizedTest
  @ValueSource(strings = {"fake-driver", "nvidia-driver"})
  void deviceClassesAreValidResourceV1Objects(String example) throws IOException {
    for (JsonNode deviceClass : load(example).get("DeviceClass")) {
      OpenApiSchemas.resourceV1().assertValid("io.k8s.api.resource.v1.DeviceClass", deviceClass);
      for (JsonNode selector : deviceClass.path("spec").path("selectors")) {
        CelSelectors.shared().compile(selector.path("cel").path("expression").asText());
      }
    }
  }

  @Test
  void theFakeDeviceClassSelectsTheFakeDevicesUnderItsExtendedResourceName() throws Exception {
    JsonNode deviceClass = load("fake-driver").get("DeviceClass").get(0);
    assertThat(deviceClass.path("spec").path("extendedResourceName").asText())
        .isEqualTo("example.com/gpu");
    String expression =
        deviceClass.path("spec").path("selectors").get(0).path("cel").path("expression").asText();
    List<Device> devices;
    try (FakeDeviceProvider provider = new FakeDeviceProvider()) {
      devices =
          provider
              .discover(ProviderContext.builder("gpu.example.com", "node-1").build())
              .pools()
              .get(0)
              .devices();
    }
    assertThat(devices)
        .isNotEmpty()
        .allMatch(d -> CelSelectors.shared().compile(expression).matches("gpu.example.com", d));
    assertThat(devices)
        .noneMatch(d -> CelSelectors.shared().compile(expression).matches("other.example.com", d));
  }

  @ParameterizedTest
  @ValueSource(strings = {"fake-driver", "nvidia-driver"})
  void theDaemonSetUsesTheDriversFlagsAndTheKubeletsDirectories(String example) throws IOException {
    JsonNode daemonSet = load(example).get("DaemonSet").get(0);
    JsonNode container =
        daemonSet.path("spec").path("template").path("spec").path("containers").get(0);
    List<String> args = new ArrayList<>();
    container.path("args").forEach(a -> args.add(a.asText()));
    assertThat(args.get(0)).isEqualTo("run");
    assertThat(fieldRef(container, "NODE_NAME")).isEqualTo("spec.nodeName");
    assertThat(fieldRef(container, "POD_UID")).isEqualTo("metadata.uid");
    Map<String, String> env =
        Map.of(
            "DRIVER_NAME", env(daemonSet, "DRIVER_NAME"),
            "NODE_NAME", "node-1",
            "POD_UID", "8a1e2f4c-9d3b-4f6a-b1c2-0d9e8f7a6b5c");
    DriverSettings options = DriverSettings.parse(args.subList(1, args.size()), Map.of(), env);
    assertThat(options.podUid()).isPresent();
    Map<String, String> mounts = new HashMap<>();
    container
        .path("volumeMounts")
        .forEach(m -> mounts.put(m.path("mountPath").asText(), m.path("name").asText()));
    assertThat(mounts)
        .containsKeys(
            // What the driver's builder uses when the DaemonSet leaves them to it.
            options.registrarDirectory().orElse(SocketNames.DEFAULT_REGISTRAR_DIRECTORY).toString(),
            options
                .pluginDirectory()
                .orElse(SocketNames.defaultPluginDataDirectory(options.driverName()))
                .getParent()
                .toString(),
            options.cdiDirectory().orElse(CdiSpecWriter.DEFAULT_DIRECTORY).toString());
    assertThat(
            daemonSet
                .path("spec")
                .path("updateStrategy")
                .path("rollingUpdate")
                .path("maxSurge")
                .asInt())
        .as("rolling updates run old and new driver side by side")
        .isEqualTo(1);
  }

  private static String env(JsonNode daemonSet, String name) {
    for (JsonNode e :
        daemonSet
            .path("spec")
            .path("template")
            .path("spec")
            .path("containers")
            .get(0)
            .path("env")) {
      if (e.path("name").asText().equals(name)) {
        return e.path("value").asText();
      }
    }
    throw new AssertionError("no env " + name);
  }

  private static String fieldRef(JsonNode container, String name) {
    for (JsonNode e : container.path("env")) {
      if (e.path("name").asText().equals(name)) {
        return e.path("valueFrom").path("fieldRef").path("fieldPath").asText();
      }
    }
    throw new AssertionError("no env " + name);
  }
}
