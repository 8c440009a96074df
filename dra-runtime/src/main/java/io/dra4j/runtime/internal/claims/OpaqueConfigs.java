package io.dra4j.runtime.internal.claims;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.OpaqueConfig;
import io.dra4j.api.provider.ConfigType;
import io.dra4j.api.provider.TypedConfig;
import io.dra4j.kube.DeviceAllocationConfiguration;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.OpaqueDeviceConfiguration;
import io.dra4j.kube.RequestNames;
import io.dra4j.kube.internal.Failures;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Picks and decodes the opaque config of each allocated device: configs of this driver from {@code
 * status.allocation.devices.config}, class configs first and claim configs after them, the last
 * applicable one winning; an entry applies when its {@code requests} is empty, names the device's
 * request or names {@code request/subrequest} of the chosen subrequest. The winner is decoded
 * strictly into one of the provider's {@link ConfigType}s (apiVersion and kind must match, unknown
 * fields are errors) and checked with {@link TypedConfig#validate}. Pure: no I/O.
 */
final class OpaqueConfigs {

  private static final ObjectMapper STRICT =
      KubeJson.configure(new ObjectMapper())
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true)
          .configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, true)
          .configure(DeserializationFeature.FAIL_ON_TRAILING_TOKENS, true);

  private final String driver;
  private final Optional<TypedConfig> typed;

  OpaqueConfigs(String driver, Optional<TypedConfig> typed) {
    this.driver = driver;
    this.typed = typed;
  }

  /**
   * The devices with their configs.
   *
   * @throws ClaimException naming the claim, the request, the config type and the field
   */
  List<AllocatedDevice> apply(
      ClaimRef claim, List<AllocatedDevice> devices, List<DeviceAllocationConfiguration> configs)
      throws ClaimException {
    List<DeviceAllocationConfiguration> ours = ordered(configs);
    if (ours.isEmpty()) {
      return devices;
    }
    Map<Integer, Object> decoded = new HashMap<>();
    List<AllocatedDevice> out = new ArrayList<>(devices.size());
    for (AllocatedDevice d : devices) {
      int winner = -1;
      for (int i = 0; i < ours.size(); i++) {
        if (appliesTo(ours.get(i), d)) {
          winner = i;
        }
      }
      if (winner < 0) {
        out.add(d);
        continue;
      }
      Object config = decoded.get(winner);
      if (config == null) {
        config = decode(claim, requestName(d), ours.get(winner).opaque().get());
        decoded.put(winner, config);
      }
      out.add(d.withConfig(config));
    }
    return out;
  }

  /**
   * The configs of this driver that apply to each device, in {@code devices}' order: all of them,
   * class configs first, for a provider that merges them itself ({@code
   * k8s.io/dynamic-resource-allocation@v0.37.2 resourceclaim/resourceclaim.go:265-290}).
   */
  List<List<OpaqueConfig>> applicable(
      List<AllocatedDevice> devices, List<DeviceAllocationConfiguration> configs) {
    List<DeviceAllocationConfiguration> ours = ordered(configs);
    List<List<OpaqueConfig>> out = new ArrayList<>(devices.size());
    for (AllocatedDevice d : devices) {
      List<OpaqueConfig> forDevice = new ArrayList<>();
      for (DeviceAllocationConfiguration c : ours) {
        if (appliesTo(c, d)) {
          forDevice.add(toApi(c));
        }
      }
      out.add(forDevice);
    }
    return out;
  }

  private static OpaqueConfig toApi(DeviceAllocationConfiguration c) {
    String parameters;
    try {
      parameters = KubeJson.mapper().writeValueAsString(c.opaque().get().parameters());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree that cannot be written: " + e, e);
    }
    return OpaqueConfig.builder(
            DeviceAllocationConfiguration.FROM_CLASS.equals(c.source())
                ? OpaqueConfig.Source.CLASS
                : OpaqueConfig.Source.CLAIM,
            parameters)
        .requests(c.requests())
        .build();
  }

  /** This driver's configs, class configs before claim configs, each group in its order. */
  private List<DeviceAllocationConfiguration> ordered(List<DeviceAllocationConfiguration> all) {
    List<DeviceAllocationConfiguration> fromClass = new ArrayList<>();
    List<DeviceAllocationConfiguration> fromClaim = new ArrayList<>();
    for (DeviceAllocationConfiguration c : all) {
      if (c.opaque().isEmpty() || !driver.equals(c.opaque().get().driver())) {
        continue;
      }
      if (DeviceAllocationConfiguration.FROM_CLASS.equals(c.source())) {
        fromClass.add(c);
      } else {
        // FromClaim, and any future source: claim configs override class configs.
        fromClaim.add(c);
      }
    }
    fromClass.addAll(fromClaim);
    return fromClass;
  }

  private static boolean appliesTo(DeviceAllocationConfiguration c, AllocatedDevice d) {
    return RequestNames.matches(c.requests(), requestName(d));
  }

  private static String requestName(AllocatedDevice d) {
    return RequestNames.of(d.request(), d.subrequest());
  }

  private Object decode(ClaimRef claim, String request, OpaqueDeviceConfiguration opaque)
      throws ClaimException {
    String where = "claim " + claim + ", request " + request + ": config for driver " + driver;
    if (typed.isEmpty()) {
      throw new ClaimException(
          where
              + ": the claim carries opaque configuration for this driver, but the driver's"
              + " provider accepts none (it does not implement TypedConfig)");
    }
    JsonNode params = opaque.parameters();
    if (!params.isObject()) {
      throw new ClaimException(
          where + ": parameters must be a JSON object, found " + nodeType(params));
    }
    JsonNode apiVersionNode = params.get("apiVersion");
    JsonNode kindNode = params.get("kind");
    if (apiVersionNode == null
        || !apiVersionNode.isTextual()
        || kindNode == null
        || !kindNode.isTextual()) {
      throw new ClaimException(
          where
              + ": parameters must carry string fields \"apiVersion\" and \"kind\" naming one of "
              + accepted());
    }
    String apiVersion = apiVersionNode.textValue();
    String kind = kindNode.textValue();
    ConfigType<?> type = null;
    for (ConfigType<?> t : typed.get().configTypes()) {
      if (t.apiVersion().equals(apiVersion) && t.kind().equals(kind)) {
        type = t;
        break;
      }
    }
    String what = "claim " + claim + ", request " + request + ": config " + apiVersion + " " + kind;
    if (type == null) {
      throw new ClaimException(
          what + ": not a config this driver accepts; accepted: " + accepted());
    }
    ObjectNode body = ((ObjectNode) params).deepCopy();
    Set<String> declared = declaredProperties(type.type());
    if (!declared.contains("apiVersion")) {
      body.remove("apiVersion");
    }
    if (!declared.contains("kind")) {
      body.remove("kind");
    }
    Object value;
    try {
      value = STRICT.treeToValue(body, type.type());
    } catch (IOException | IllegalArgumentException e) {
      throw new ClaimException(what + ": " + Failures.describe(e), e);
    }
    if (value == null) {
      throw new ClaimException(what + ": decoded to nothing");
    }
    try {
      typed.get().validate(value);
    } catch (IllegalArgumentException e) {
      throw new ClaimException(what + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw new ClaimException(what + ": the provider's validation failed: " + e, e);
    }
    return value;
  }

  private static Set<String> declaredProperties(Class<?> type) {
    JavaType jt = STRICT.constructType(type);
    BeanDescription desc = STRICT.getDeserializationConfig().introspect(jt);
    Set<String> names = new HashSet<>();
    for (BeanPropertyDefinition p : desc.findProperties()) {
      names.add(p.getName());
    }
    return names;
  }

  private String accepted() {
    return typed.get().configTypes().stream()
        .map(t -> t.apiVersion() + " " + t.kind())
        .collect(Collectors.joining(", "));
  }

  private static String nodeType(JsonNode n) {
    return n.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
  }
}
