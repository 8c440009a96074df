package io.dra4j.runtime.internal.checkpoint;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.kube.internal.Failures;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The checkpoint file format. Written field by field and read leniently: fields this version does
 * not know are ignored, missing optional fields take their defaults, and every problem names the
 * field. See the package documentation for the versioning rule.
 */
final class CheckpointCodec {
  /**
   * The format version this code writes. Version 2 moved a device's claim status from the
   * provider's {@code recorded} map (reserved key {@value #V1_STATUS_KEY}, a JSON string) to its
   * own field {@code status} (a JSON object); version 1 records are migrated when read.
   */
  static final int VERSION = 2;

  /**
   * The oldest reader version that understands what this code writes: a version 1 reader reads a
   * version 2 record, ignoring {@code status} (it then does not re-apply the status on a repeated
   * prepare, nothing worse), so a downgrade keeps every claim.
   */
  static final int MIN_READER_VERSION = 1;

  /** The highest {@code minReaderVersion} this code can honour. */
  static final int READER_VERSION = 2;

  /** Where version 1 kept a device's claim status. */
  static final String V1_STATUS_KEY = "dra4j.io/status";

  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private CheckpointCodec() {}

  /** Why a file could not be read as a record. */
  static final class FormatException extends Exception {
    private static final long serialVersionUID = 1L;
    final boolean corrupt;

    private FormatException(String message, boolean corrupt) {
      super(message);
      this.corrupt = corrupt;
    }

    static FormatException corrupt(String message) {
      return new FormatException(message, true);
    }

    static FormatException unsupported(String message) {
      return new FormatException(message, false);
    }
  }

  static byte[] encode(ClaimCheckpoint r) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("version", VERSION);
    root.put("minReaderVersion", MIN_READER_VERSION);
    root.put("driver", r.driverName());
    ObjectNode claim = root.putObject("claim");
    claim.put("namespace", r.claim().namespace());
    claim.put("name", r.claim().name());
    claim.put("uid", r.claim().uid());
    root.put("state", r.state().jsonName());
    root.put("bootId", r.bootId());
    root.put("createdAt", r.createdAt().toString());
    root.put("updatedAt", r.updatedAt().toString());
    ArrayNode devices = root.putArray("devices");
    for (CheckpointDevice d : r.devices()) {
      ObjectNode o = devices.addObject();
      o.put("request", d.request());
      o.put("pool", d.pool());
      o.put("device", d.device());
      d.shareId().ifPresent(s -> o.put("shareId", s));
      o.put("adminAccess", d.adminAccess());
      ArrayNode ids = o.putArray("cdiDeviceIds");
      d.cdiDeviceIds().forEach(ids::add);
      ObjectNode rec = o.putObject("recorded");
      new TreeMap<>(d.recorded()).forEach(rec::put);
      // Already JSON (the runtime encoded it): embedded as it is, not parsed again on every write.
      d.status().ifPresent(json -> o.putRawValue("status", new RawValue(json)));
    }
    try {
      return (MAPPER.writeValueAsString(root) + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize a JSON tree", e);
    }
  }

  static ClaimCheckpoint decode(byte[] content) throws FormatException {
    JsonNode root;
    try {
      root = MAPPER.readTree(content);
    } catch (IOException e) {
      throw FormatException.corrupt(jsonError(e));
    }
    if (root == null || root.isMissingNode()) {
      throw FormatException.corrupt("the file is empty");
    }
    if (!root.isObject()) {
      throw FormatException.corrupt("expected a JSON object, found " + describe(root));
    }
    int version = intField(root, "version", "version");
    if (version < 1) {
      throw FormatException.corrupt("version " + version + " is not a format version");
    }
    JsonNode minReader = root.get("minReaderVersion");
    int minReaderVersion =
        minReader == null ? 1 : intField(root, "minReaderVersion", "minReaderVersion");
    if (minReaderVersion > READER_VERSION) {
      throw FormatException.unsupported(
          "written in format version "
              + version
              + ", which needs a reader of version "
              + minReaderVersion
              + " or newer; this dra4j reads up to "
              + READER_VERSION
              + " (a newer dra4j wrote it)");
    }
    String driver = text(root, "driver", "driver");
    JsonNode claimNode = object(root, "claim", "claim");
    ClaimRef claim =
        ClaimRef.of(
            text(claimNode, "namespace", "claim.namespace"),
            text(claimNode, "name", "claim.name"),
            text(claimNode, "uid", "claim.uid"));
    String stateName = text(root, "state", "state");
    PrepareState state =
        PrepareState.fromJsonName(stateName)
            .orElseThrow(
                () ->
                    FormatException.unsupported(
                        "state \"" + stateName + "\" is unknown to this dra4j version"));
    String bootId = text(root, "bootId", "bootId");
    Instant createdAt = instant(root, "createdAt");
    Instant updatedAt = instant(root, "updatedAt");
    JsonNode devicesNode = root.get("devices");
    if (devicesNode == null || !devicesNode.isArray()) {
      throw FormatException.corrupt("devices: expected an array, found " + describe(devicesNode));
    }
    List<CheckpointDevice> devices = new ArrayList<>();
    for (int i = 0; i < devicesNode.size(); i++) {
      devices.add(device(devicesNode.get(i), "devices[" + i + "]", version));
    }
    return new ClaimCheckpoint(claim, driver, state, bootId, createdAt, updatedAt, devices);
  }

  private static CheckpointDevice device(JsonNode n, String at, int version)
      throws FormatException {
    if (!n.isObject()) {
      throw FormatException.corrupt(at + ": expected an object, found " + describe(n));
    }
    Optional<String> shareId = Optional.empty();
    if (n.hasNonNull("shareId")) {
      shareId = Optional.of(text(n, "shareId", at + ".shareId"));
    }
    boolean adminAccess = false;
    JsonNode admin = n.get("adminAccess");
    if (admin != null && !admin.isNull()) {
      if (!admin.isBoolean()) {
        throw FormatException.corrupt(
            at + ".adminAccess: expected a boolean, found " + describe(admin));
      }
      adminAccess = admin.booleanValue();
    }
    List<String> ids = new ArrayList<>();
    JsonNode idsNode = n.get("cdiDeviceIds");
    if (idsNode != null && !idsNode.isNull()) {
      if (!idsNode.isArray()) {
        throw FormatException.corrupt(
            at + ".cdiDeviceIds: expected an array, found " + describe(idsNode));
      }
      for (int i = 0; i < idsNode.size(); i++) {
        JsonNode id = idsNode.get(i);
        if (!id.isTextual()) {
          throw FormatException.corrupt(
              at + ".cdiDeviceIds[" + i + "]: expected a string, found " + describe(id));
        }
        ids.add(id.textValue());
      }
    }
    Map<String, String> recorded = new LinkedHashMap<>();
    JsonNode rec = n.get("recorded");
    if (rec != null && !rec.isNull()) {
      if (!rec.isObject()) {
        throw FormatException.corrupt(at + ".recorded: expected an object, found " + describe(rec));
      }
      var it = rec.fields();
      while (it.hasNext()) {
        var e = it.next();
        if (!e.getValue().isTextual()) {
          throw FormatException.corrupt(
              at
                  + ".recorded."
                  + e.getKey()
                  + ": expected a string, found "
                  + describe(e.getValue()));
        }
        recorded.put(e.getKey(), e.getValue().textValue());
      }
    }
    Optional<String> status = Optional.empty();
    JsonNode statusNode = n.get("status");
    if (statusNode != null && !statusNode.isNull()) {
      if (!statusNode.isObject()) {
        throw FormatException.corrupt(
            at + ".status: expected an object, found " + describe(statusNode));
      }
      status = Optional.of(statusNode.toString());
    } else if (version == 1 && recorded.containsKey(V1_STATUS_KEY)) {
      // Migrate: version 1 kept the status among the provider's recorded values.
      String json = recorded.remove(V1_STATUS_KEY);
      JsonNode tree;
      try {
        tree = MAPPER.readTree(json);
      } catch (IOException e) {
        throw FormatException.corrupt(
            at + ".recorded." + V1_STATUS_KEY + ": not JSON (" + jsonError(e) + ")");
      }
      if (tree == null || !tree.isObject()) {
        throw FormatException.corrupt(
            at
                + ".recorded."
                + V1_STATUS_KEY
                + ": expected a JSON object, found "
                + describe(tree));
      }
      status = Optional.of(tree.toString());
    }
    return new CheckpointDevice(
        text(n, "request", at + ".request"),
        text(n, "pool", at + ".pool"),
        text(n, "device", at + ".device"),
        shareId,
        adminAccess,
        ids,
        recorded,
        status);
  }

  private static String text(JsonNode parent, String field, String at) throws FormatException {
    JsonNode v = parent.get(field);
    if (v == null || !v.isTextual()) {
      throw FormatException.corrupt(at + ": expected a string, found " + describe(v));
    }
    return v.textValue();
  }

  private static int intField(JsonNode parent, String field, String at) throws FormatException {
    JsonNode v = parent.get(field);
    if (v == null || !v.canConvertToInt() || !v.isIntegralNumber()) {
      throw FormatException.corrupt(at + ": expected an integer, found " + describe(v));
    }
    return v.intValue();
  }

  private static JsonNode object(JsonNode parent, String field, String at) throws FormatException {
    JsonNode v = parent.get(field);
    if (v == null || !v.isObject()) {
      throw FormatException.corrupt(at + ": expected an object, found " + describe(v));
    }
    return v;
  }

  private static Instant instant(JsonNode parent, String field) throws FormatException {
    String s = text(parent, field, field);
    try {
      return Instant.parse(s);
    } catch (DateTimeParseException e) {
      throw FormatException.corrupt(field + ": \"" + s + "\" is not an ISO-8601 instant");
    }
  }

  private static String jsonError(IOException e) {
    return Failures.describe(e);
  }

  private static String describe(JsonNode v) {
    return v == null ? "nothing" : v.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
  }
}
