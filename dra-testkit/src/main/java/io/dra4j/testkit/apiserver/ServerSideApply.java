package io.dra4j.testkit.apiserver;

import static io.dra4j.testkit.apiserver.WriteRules.checkKind;
import static io.dra4j.testkit.apiserver.WriteRules.checkName;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Server-side apply, simplified: the applied object is merged into the stored one (list-maps by
 * their keys), the manager is recorded in {@code managedFields}, and ownership of the entries of
 * {@code status.devices}, the list drivers share, is tracked per manager.
 */
final class ServerSideApply {
  /** object → field manager → status.devices keys it applied. */
  private final Map<String, Map<String, Set<String>>> deviceOwners = new HashMap<>();

  /** The checks of an apply request's body before anything is read. */
  static void check(ResourceDef def, String name, JsonNode applied) throws ApiError {
    if (!applied.isObject()) {
      throw ApiError.badRequest("an apply patch must be an object");
    }
    if (applied.path("apiVersion").asText("").isEmpty()
        || applied.path("kind").asText("").isEmpty()) {
      throw ApiError.badRequest("apiVersion and kind must be set in an apply patch");
    }
    checkKind(def, applied);
    checkName(applied, name);
  }

  /** The object to create when nothing by that name exists yet. */
  ObjectNode toCreate(JsonNode applied, String name, String manager, String sub) {
    ObjectNode body = ((ObjectNode) applied).deepCopy();
    body.withObjectProperty("metadata").put("name", name);
    recordManager(body, manager, sub);
    return body;
  }

  /** The stored object with the applied one merged in, as the update to write. */
  ObjectNode merge(
      ResourceDef def,
      String name,
      String objKey,
      ObjectNode existing,
      JsonNode applied,
      String manager,
      String sub,
      boolean force)
      throws ApiError {
    boolean status = "status".equals(sub);
    ObjectNode merged = existing.deepCopy();
    ObjectNode part = ((ObjectNode) applied).deepCopy();
    part.remove("apiVersion");
    part.remove("kind");
    JsonNode appliedMeta = part.remove("metadata");
    if (status) {
      JsonNode st = part.path("status");
      ObjectNode onlyStatus = part.objectNode();
      if (st.isObject()) {
        onlyStatus.set("status", st);
      }
      part = onlyStatus;
      applyDeviceOwnership(def, name, objKey, merged, part, manager, force);
    } else {
      if (def.hasStatus) {
        part.remove("status");
      }
      if (appliedMeta != null && appliedMeta.isObject()) {
        ObjectNode m = part.putObject("metadata");
        for (String f : List.of("labels", "annotations", "finalizers", "ownerReferences")) {
          if (appliedMeta.has(f)) {
            m.set(f, appliedMeta.get(f));
          }
        }
      }
    }
    Patches.applyMerge(merged, part, "");
    recordManager(merged, manager, sub);
    return merged;
  }

  /** Forgets who applied what on an object that is gone. */
  void forget(String objKey) {
    deviceOwners.remove(objKey);
  }

  /**
   * Server-side apply semantics for {@code status.devices}, the list drivers share: a manager owns
   * the entries it applied; entries it applied before and leaves out now are removed; changing an
   * entry another manager owns is a conflict unless forced (then ownership moves).
   */
  private void applyDeviceOwnership(
      ResourceDef def,
      String name,
      String objKey,
      ObjectNode merged,
      ObjectNode part,
      String manager,
      boolean force)
      throws ApiError {
    List<String> keys = Patches.LIST_MAP_KEYS.get("status.devices");
    Map<String, Set<String>> owners = deviceOwners.computeIfAbsent(objKey, k -> new HashMap<>());
    JsonNode appliedDevices = part.path("status").path("devices");
    Set<String> appliedKeys = new HashSet<>();
    ArrayNode current =
        merged.path("status").path("devices").isArray()
            ? (ArrayNode) merged.path("status").path("devices")
            : null;
    List<String> conflicts = new ArrayList<>();
    for (JsonNode entry : appliedDevices) {
      String k = Patches.key(entry, keys);
      appliedKeys.add(k);
      for (Map.Entry<String, Set<String>> o : owners.entrySet()) {
        if (!o.getKey().equals(manager) && o.getValue().contains(k) && current != null) {
          for (JsonNode c : current) {
            if (Patches.key(c, keys).equals(k)) {
              ObjectNode probe = (ObjectNode) c.deepCopy();
              Patches.applyMerge(probe, entry, "status.devices[]");
              if (!probe.equals(c)) {
                if (!force) {
                  conflicts.add(
                      "conflict with \""
                          + o.getKey()
                          + "\": .status.devices["
                          + k.replace('\u0000', '/')
                          + "]");
                } else {
                  o.getValue().remove(k);
                }
              }
            }
          }
        }
      }
    }
    if (!conflicts.isEmpty()) {
      throw new ApiError(
          409,
          "Conflict",
          "Apply failed with "
              + conflicts.size()
              + " conflict(s): "
              + String.join(", ", conflicts));
    }
    Set<String> before = owners.getOrDefault(manager, Set.of());
    if (current != null) {
      Iterator<JsonNode> it = current.iterator();
      while (it.hasNext()) {
        String k = Patches.key(it.next(), keys);
        if (before.contains(k) && !appliedKeys.contains(k)) {
          it.remove();
        }
      }
    }
    owners.put(manager, appliedKeys);
  }

  private static void recordManager(ObjectNode obj, String manager, String sub) {
    ObjectNode meta = obj.withObjectProperty("metadata");
    ArrayNode mf =
        meta.path("managedFields").isArray()
            ? (ArrayNode) meta.get("managedFields")
            : meta.putArray("managedFields");
    for (Iterator<JsonNode> it = mf.iterator(); it.hasNext(); ) {
      JsonNode e = it.next();
      if (manager.equals(e.path("manager").asText())
          && sub.equals(e.path("subresource").asText(""))
          && "Apply".equals(e.path("operation").asText())) {
        it.remove();
      }
    }
    ObjectNode e = mf.addObject();
    e.put("manager", manager);
    e.put("operation", "Apply");
    e.put("apiVersion", obj.path("apiVersion").asText());
    e.put("time", Store.now());
    e.put("fieldsType", "FieldsV1");
    e.putObject("fieldsV1");
    if (!sub.isEmpty()) {
      e.put("subresource", sub);
    }
  }
}
