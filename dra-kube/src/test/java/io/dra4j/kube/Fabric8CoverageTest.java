package io.dra4j.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.dra4j.api.device.DeviceAttribute;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * fabric8's generated model ({@code io.fabric8:kubernetes-model-resource} 8.0.0, generated from the
 * Kubernetes 1.37 OpenAPI, test scope only) as an oracle of coverage: every field it knows in the
 * resource.k8s.io/v1 objects dra4j models, the model here knows too.
 *
 * <p>Covered: ResourceSlice, ResourceClaim, DeviceClass and DeviceTaintRule, and every type reached
 * from them through their fields that is a resource.k8s.io/v1 type (Device, its attributes,
 * capacity, request policies, counters, taints, node-allocatable resources; requests, selectors,
 * constraints, configs, tolerations, allocation results, device statuses; taint rules' selectors
 * and status) or the core NodeSelector with its terms and requirements. Not covered: object
 * metadata and metav1.Condition (the model names the fields a driver uses and keeps the rest as
 * unknown fields), opaque parameters, and ResourceClaimTemplate, which dra4j does not model.
 */
class Fabric8CoverageTest {
  private static final ObjectMapper FABRIC8 = new ObjectMapper();
  private static final ObjectMapper OURS = KubeJson.mapper();

  private static final String RESOURCE_V1 = "io.fabric8.kubernetes.api.model.resource.v1.";
  private static final Set<String> CORE_EMBEDDED =
      Set.of(
          "io.fabric8.kubernetes.api.model.NodeSelector",
          "io.fabric8.kubernetes.api.model.NodeSelectorTerm",
          "io.fabric8.kubernetes.api.model.NodeSelectorRequirement");

  @Test
  void everyFieldFabric8KnowsTheModelKnows() throws Exception {
    Map<Class<?>, Class<?>> roots = new LinkedHashMap<>();
    roots.put(fabric8("ResourceSlice"), ResourceSlice.class);
    roots.put(fabric8("ResourceClaim"), ResourceClaim.class);
    roots.put(fabric8("DeviceClass"), DeviceClass.class);
    roots.put(fabric8("DeviceTaintRule"), DeviceTaintRule.class);
    List<String> missing = new ArrayList<>();
    Set<String> covered = new TreeSet<>();
    Set<String> visited = new HashSet<>();
    for (Map.Entry<Class<?>, Class<?>> r : roots.entrySet()) {
      walk(
          FABRIC8.constructType(r.getKey()),
          OURS.constructType(r.getValue()),
          r.getKey().getSimpleName(),
          missing,
          covered,
          visited);
    }
    assertThat(missing)
        .as("resource.k8s.io/v1 fields fabric8 knows and the model does not")
        .isEmpty();
    // The oracle reached the types it is meant to cover (a fabric8 upgrade that renamed its
    // classes would otherwise pass without comparing anything).
    assertThat(covered)
        .contains(
            "Device",
            "DeviceAttribute",
            "DeviceCapacity",
            "CapacityRequestPolicy",
            "CapacityRequestPolicyRange",
            "CounterSet",
            "Counter",
            "DeviceCounterConsumption",
            "DeviceTaint",
            "NodeAllocatableResource",
            "NodeAllocatableMapping",
            "NodeAllocatableOverhead",
            "NodeSelector",
            "NodeSelectorTerm",
            "NodeSelectorRequirement",
            "ResourcePool",
            "ResourceSliceSpec",
            "ExactDeviceRequest",
            "DeviceSubRequest",
            "DeviceToleration",
            "DeviceRequestAllocationResult",
            "AllocatedDeviceStatus",
            "NetworkDeviceData",
            "DeviceClassSpec",
            "DeviceTaintRuleSpec",
            "DeviceTaintSelector");
  }

  private static Class<?> fabric8(String simpleName) throws ClassNotFoundException {
    return Class.forName(RESOURCE_V1 + simpleName);
  }

  private static void walk(
      JavaType theirs,
      JavaType ours,
      String path,
      List<String> missing,
      Set<String> covered,
      Set<String> visited) {
    if (!visited.add(theirs.getRawClass().getName() + "->" + ours.getRawClass().getName())) {
      return;
    }
    covered.add(theirs.getRawClass().getSimpleName());
    Map<String, JavaType> ourFields = fields(OURS, ours);
    for (Map.Entry<String, JavaType> f : fields(FABRIC8, theirs).entrySet()) {
      String name = f.getKey();
      JavaType ourField = ourFields.get(name);
      if (ourField == null) {
        missing.add(path + "." + name);
        continue;
      }
      JavaType a = element(f.getValue());
      JavaType b = element(ourField);
      if (covers(a) && b.getRawClass().getName().startsWith("io.dra4j.")) {
        walk(a, b, path + "." + name, missing, covered, visited);
      }
    }
  }

  private static boolean covers(JavaType fabric8Type) {
    String n = fabric8Type.getRawClass().getName();
    return n.startsWith(RESOURCE_V1) || CORE_EMBEDDED.contains(n);
  }

  /** The JSON fields of a type: what Jackson reads and writes, by name. */
  private static Map<String, JavaType> fields(ObjectMapper mapper, JavaType type) {
    Map<String, JavaType> out = new LinkedHashMap<>();
    if (type.getRawClass() == DeviceAttribute.class) {
      // dra4j's attribute is a union of one record per value kind, written by its own codec.
      for (Class<?> kind : DeviceAttribute.class.getPermittedSubclasses()) {
        if (kind.isRecord()) {
          RecordComponent c = kind.getRecordComponents()[0];
          String field = c.getAccessor().getAnnotation(JsonProperty.class).value();
          out.put(field, mapper.constructType(c.getType()));
        }
      }
      return out;
    }
    for (BeanDescription d :
        List.of(
            mapper.getSerializationConfig().introspect(type),
            mapper.getDeserializationConfig().introspect(type))) {
      for (BeanPropertyDefinition p : d.findProperties()) {
        if (!p.getName().equals("additionalProperties") && !p.getName().equals("unknownFields")) {
          out.putIfAbsent(p.getName(), p.getPrimaryType());
        }
      }
    }
    return out;
  }

  /** The type inside lists, maps and optionals. */
  private static JavaType element(JavaType t) {
    while (t.isContainerType() || t.isReferenceType()) {
      t = t.isReferenceType() ? t.getReferencedType() : t.getContentType();
    }
    return t;
  }
}
