package io.dra4j.testkit.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.fake.FakeConfig;
import io.dra4j.fake.FakeDeviceProvider;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the kubelet reads when a claim cannot be prepared: the fake driver, whole (DraDriver with
 * the fake provider), serves the kubelet simulator over its real sockets, and each malformed or
 * misplaced claim must fail with exactly one message naming the claim, the field and the rule, with
 * no Java class names, no parser tokens and the claim named once.
 */
class KubeletErrorMessagesTest {
  static final String DRIVER = FakeNode.DRIVER;
  static final String NODE = FakeNode.NODE;

  @TempDir Path tmp;
  FakeNode node;
  PluginInstance plugin;

  @BeforeEach
  void setUp() throws Exception {
    node = FakeNode.start(tmp);
    plugin =
        node.start(
            node.driver(new FakeDeviceProvider()).config(FakeDeviceProvider.CONFIG_DEVICES, "2"));
  }

  @AfterEach
  void tearDown() {
    node.close();
  }

  ClaimRef seed(String name, String pool, String device, Object parameters) {
    return SeededClaims.allocated(node.api, DRIVER, name, pool, device, parameters);
  }

  static Map<String, Object> fake(Object... fields) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("apiVersion", FakeConfig.API_VERSION);
    m.put("kind", FakeConfig.KIND);
    for (int i = 0; i < fields.length; i += 2) {
      m.put((String) fields[i], fields[i + 1]);
    }
    return m;
  }

  /** The kubelet's error for the claim; the claim may be named only once, in front. */
  String error(ClaimRef claim) {
    ClaimResult r = plugin.prepare(List.of(claim)).get(claim.uid());
    assertThat(r.error()).as("claim %s must fail", claim).isPresent();
    String e = r.error().get();
    assertThat(e)
        .as("no Java or parser names")
        .doesNotContain("`", "java.", "io.dra4j", "JsonToken", "Exception", "$");
    String named = claim.namespace() + "/" + claim.name();
    assertThat(e.indexOf(named)).as("claim named once: %s", e).isEqualTo(e.lastIndexOf(named));
    return e;
  }

  /** What the kubelet reads for a claim with these parameters, after the claim's name. */
  String configError(String name, Object parameters) throws Exception {
    ClaimRef claim = seed(name, NODE, "gpu-0", parameters);
    String prefix = "claim " + claim + ", request gpu: ";
    String e = error(claim);
    assertThat(e).startsWith(prefix);
    return e.substring(prefix.length());
  }

  static final String CONFIG = "config fake.dra4j.io/v1alpha1 FakeDeviceConfig: ";

  @Test
  void malformedOpaqueConfigsNameTheFieldAndTheRule() throws Exception {
    assertThat(configError("unknown-field", fake("sharingg", "TimeSlicing")))
        .isEqualTo(CONFIG + "unknown field \"sharingg\" (known fields: env, sharing)");
    assertThat(configError("wrong-type", fake("sharing", Map.of("mode", "x"))))
        .isEqualTo(
            CONFIG + "field \"sharing\": expected one of Exclusive, TimeSlicing, found an object");
    assertThat(configError("wrong-type-env", fake("env", "A=1")))
        .isEqualTo(CONFIG + "field \"env\": expected an object, found the string \"A=1\"");
    assertThat(configError("wrong-type-env-value", fake("env", Map.of("A", List.of(1)))))
        .isEqualTo(CONFIG + "field \"env.A\": expected a string, found an array");
    assertThat(configError("bad-enum", fake("sharing", "Sometimes")))
        .isEqualTo(
            CONFIG + "field \"sharing\": \"Sometimes\" must be one of Exclusive, TimeSlicing");
    assertThat(configError("bad-env-name", fake("env", Map.of("1A", "x"))))
        .isEqualTo(
            CONFIG
                + "env: \"1A\" is not a valid variable name (letters, digits, _; no leading digit)");
    assertThat(
            configError(
                "wrong-kind", Map.of("apiVersion", FakeConfig.API_VERSION, "kind", "GpuConfig")))
        .isEqualTo(
            "config fake.dra4j.io/v1alpha1 GpuConfig: not a config this driver accepts; accepted:"
                + " fake.dra4j.io/v1alpha1 FakeDeviceConfig");
    assertThat(configError("no-kind", Map.of("sharing", "Exclusive")))
        .isEqualTo(
            "config for driver gpu.example.com: parameters must carry string fields \"apiVersion\""
                + " and \"kind\" naming one of fake.dra4j.io/v1alpha1 FakeDeviceConfig");
    assertThat(configError("not-an-object", List.of(1)))
        .isEqualTo(
            "config for driver gpu.example.com: parameters must be a JSON object, found array");
  }

  @Test
  void claimsThatDoNotFitThisNodeNameTheDeviceAndThePool() throws Exception {
    ClaimRef wrongNode = seed("wrong-node", "node-2", "gpu-0", null);
    assertThat(error(wrongNode))
        .isEqualTo(
            "claim "
                + wrongNode
                + ": device node-2/gpu-0 is not a device of this node: pool node-2 is another"
                + " node's (this node's pool is node-1)");
    ClaimRef unknown = seed("unknown-device", NODE, "gpu-9", null);
    assertThat(error(unknown))
        .isEqualTo(
            "claim "
                + unknown
                + ": device node-1/gpu-9 is not a device of this node (pool node-1 has no device"
                + " gpu-9)");
  }

  @Test
  void claimsThatCannotBeResolvedSaySo() throws Exception {
    ClaimRef notAllocated = SeededClaims.pending(node.api, "pending");
    assertThat(error(notAllocated))
        .isEqualTo("claim " + notAllocated + " is not allocated (status.allocation is unset)");
    ClaimRef missing = ClaimRef.of("ns", "missing", "6b1a0a3e-0000-4000-8000-000000000000");
    assertThat(error(missing)).isEqualTo("cannot read ResourceClaim " + missing + ": not found");
    ClaimRef stored = seed("replaced", NODE, "gpu-0", null);
    ClaimRef old = ClaimRef.of("ns", "replaced", "6b1a0a3e-0000-4000-8000-000000000001");
    assertThat(error(old))
        .isEqualTo(
            "claim ns/replaced was replaced: expected uid "
                + old.uid()
                + ", found "
                + stored.uid());
  }
}
