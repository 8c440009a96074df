package io.dra4j.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.DeviceToleration;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.device.TaintEffect;
import org.junit.jupiter.api.Test;

/**
 * Every enum of the resource.k8s.io/v1 model (and those it embeds) read with a value a later
 * Kubernetes may send: the read never fails, the value is written back as it came, and code that
 * acts on it follows the documented fallback (k8s.io/api v0.37.2 resource/v1/types.go).
 */
class FutureEnumValuesTest {
  private final ObjectMapper json = KubeJson.mapper();

  /** Reads {@code text} as {@code type}, checks a write gives the same JSON, returns the value. */
  private <T> T roundTrip(String text, Class<T> type) throws Exception {
    JsonNode in = json.readTree(text.replace('\'', '"'));
    T value = json.treeToValue(in, type);
    assertThat(json.readTree(json.writeValueAsString(value))).isEqualTo(in);
    return value;
  }

  private static String slice(String spec) {
    return "{'apiVersion':'resource.k8s.io/v1','kind':'ResourceSlice','metadata':{'name':'s'},"
        + "'spec':{'driver':'d','pool':{'name':'p','generation':1,'resourceSliceCount':1},"
        + "'nodeName':'n',"
        + spec
        + "}}";
  }

  private static String claim(String request, String status) {
    return "{'apiVersion':'resource.k8s.io/v1','kind':'ResourceClaim',"
        + "'metadata':{'name':'c','namespace':'ns'},"
        + "'spec':{'devices':{'requests':["
        + request
        + "]}}"
        + status
        + "}";
  }

  @Test
  void aTaintEffectOfALaterReleaseActsAsNone() throws Exception {
    // "Consumers must treat unknown effects like None." (types.go, DeviceTaint.Effect)
    ResourceSlice s =
        roundTrip(
            slice("'devices':[{'name':'gpu-0','taints':[{'key':'k','effect':'Quarantine'}]}]"),
            ResourceSlice.class);
    DeviceTaint t = s.spec().devices().get(0).taints().get(0);
    assertThat(t.effect()).isEqualTo(TaintEffect.NONE);
    assertThat(t.effectName()).isEqualTo("Quarantine");
    assertThat(t.sameAs(DeviceTaint.of("k", "", TaintEffect.NONE))).isFalse();

    DeviceTaintRule rule =
        roundTrip(
            "{'apiVersion':'resource.k8s.io/v1','kind':'DeviceTaintRule','metadata':{'name':'r'},"
                + "'spec':{'taint':{'key':'k','effect':'Quarantine'}}}",
            DeviceTaintRule.class);
    assertThat(rule.spec().taint().effect()).isEqualTo(TaintEffect.NONE);
  }

  @Test
  void aTolerationEffectOfALaterReleaseMatchesOnlyThatEffect() throws Exception {
    ResourceClaim c =
        roundTrip(
            claim(
                "{'name':'gpu','exactly':{'deviceClassName':'gpu.example.com','tolerations':"
                    + "[{'key':'k','operator':'Exists','effect':'Quarantine'}]}}",
                ""),
            ResourceClaim.class);
    DeviceToleration t =
        c.spec().devices().requests().get(0).exactly().orElseThrow().tolerations().get(0);
    assertThat(t.effect()).isEmpty();
    assertThat(t.effectName()).isEqualTo("Quarantine");
    DeviceTaint quarantine =
        json.readValue("{\"key\":\"k\",\"effect\":\"Quarantine\"}", DeviceTaint.class);
    assertThat(t.tolerates(quarantine)).isTrue();
    assertThat(t.tolerates(DeviceTaint.of("k", "", TaintEffect.NO_SCHEDULE))).isFalse();
  }

  @Test
  void aTolerationOperatorOfALaterReleaseToleratesNothing() throws Exception {
    // resourceclaim.ToleratesTaint (dynamic-resource-allocation v0.37.2): an unknown operator
    // tolerates no taint.
    ResourceClaim c =
        roundTrip(
            claim(
                "{'name':'gpu','exactly':{'deviceClassName':'gpu.example.com','tolerations':"
                    + "[{'key':'k','operator':'Prefix','value':'x'}]}}",
                ""),
            ResourceClaim.class);
    DeviceToleration t =
        c.spec().devices().requests().get(0).exactly().orElseThrow().tolerations().get(0);
    assertThat(t.operator()).isEqualTo("Prefix");
    assertThat(t.tolerates(DeviceTaint.of("k", "x", TaintEffect.NO_SCHEDULE))).isFalse();
  }

  @Test
  void aNodeSelectorOperatorOfALaterReleaseSelectsNoNode() throws Exception {
    ResourceSlice s =
        roundTrip(
            slice("'devices':[{'name':'gpu-0'}]")
                .replace(
                    "'nodeName':'n',",
                    "'nodeSelector':{'nodeSelectorTerms':[{'matchExpressions':"
                        + "[{'key':'zone','operator':'Near','values':['a']}]}]},"),
            ResourceSlice.class);
    NodeSelector sel = s.spec().nodeSelector().orElseThrow();
    assertThat(sel.nodeSelectorTerms().get(0).matchExpressions().get(0).operator())
        .isEqualTo("Near");
    Node node =
        json.readValue("{\"metadata\":{\"name\":\"n\",\"labels\":{\"zone\":\"a\"}}}", Node.class);
    assertThat(NodeSelectors.matches(node, sel)).isFalse();
  }

  @Test
  void anAttributeOfAValueKindOfALaterReleaseIsKept() throws Exception {
    ResourceSlice s =
        roundTrip(
            slice("'devices':[{'name':'gpu-0','attributes':{'size':{'quantity':'1Gi'}}}]"),
            ResourceSlice.class);
    Device d = s.spec().devices().get(0);
    assertThat(d.attributes().get("size")).isInstanceOf(DeviceAttribute.UnknownValue.class);
  }

  @Test
  void anAllocationModeOfALaterReleaseIsKept() throws Exception {
    ResourceClaim c =
        roundTrip(
            claim(
                "{'name':'gpu','exactly':{'deviceClassName':'gpu.example.com',"
                    + "'allocationMode':'AtLeast','count':2},'firstAvailable':[{'name':'a',"
                    + "'deviceClassName':'gpu.example.com','allocationMode':'AtLeast'}]}",
                ""),
            ResourceClaim.class);
    DeviceRequest r = c.spec().devices().requests().get(0);
    assertThat(r.exactly().orElseThrow().effectiveAllocationMode()).isEqualTo("AtLeast");
    assertThat(r.firstAvailable().get(0).effectiveAllocationMode()).isEqualTo("AtLeast");
  }

  @Test
  void aConfigSourceOfALaterReleaseIsKept() throws Exception {
    ResourceClaim c =
        roundTrip(
            claim(
                "{'name':'gpu','exactly':{'deviceClassName':'gpu.example.com'}}",
                ",'status':{'allocation':{'devices':{'config':[{'source':'FromTemplate',"
                    + "'requests':['gpu'],'opaque':{'driver':'d','parameters':{}}}]}}}"),
            ResourceClaim.class);
    assertThat(c.status().allocation().orElseThrow().devices().config().get(0).source())
        .isEqualTo("FromTemplate");
  }

  @Test
  void skipNodeOperationsOfALaterReleaseAreKept() throws Exception {
    // "Other values may be added in the future. The kubelet must ignore unknown values."
    ResourceSlice s =
        roundTrip(
            slice("'devices':[{'name':'gpu-0'}],'skipNodeOperations':['NodeResizeResources','*']"),
            ResourceSlice.class);
    assertThat(s.spec().skipNodeOperations()).containsExactly("NodeResizeResources", "*");

    ResourceClaim c =
        roundTrip(
            claim(
                "{'name':'gpu','exactly':{'deviceClassName':'gpu.example.com'}}",
                ",'status':{'allocation':{'devices':{'results':[{'request':'gpu','driver':'d',"
                    + "'pool':'p','device':'gpu-0','skipNodeOperations':['NodeResizeResources']}"
                    + "]}}}"),
            ResourceClaim.class);
    assertThat(
            c.status().allocation().orElseThrow().devices().results().get(0).skipNodeOperations())
        .containsExactly("NodeResizeResources");
  }

  @Test
  void aConditionStatusOfALaterReleaseIsKept() throws Exception {
    ResourceClaim c =
        roundTrip(
            claim(
                "{'name':'gpu','exactly':{'deviceClassName':'gpu.example.com'}}",
                ",'status':{'devices':[{'driver':'d','pool':'p','device':'gpu-0','conditions':"
                    + "[{'type':'Ready','status':'Degraded','reason':'R','message':'m',"
                    + "'lastTransitionTime':'2026-12-01T00:00:00Z'}]}]}"),
            ResourceClaim.class);
    assertThat(c.status().devices().get(0).conditions().get(0).status()).isEqualTo("Degraded");
  }
}
