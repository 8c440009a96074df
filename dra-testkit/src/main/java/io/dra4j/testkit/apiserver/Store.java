package io.dra4j.testkit.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.testkit.schema.OpenApiSchemas;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * The in-memory object store: one global resourceVersion counter (like etcd), a bounded event
 * history for watches, and the write rules of the API server (optimistic concurrency,
 * preconditions, generateName, generation, finalizers, status subresources, apply).
 */
final class Store {
  private static final String NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final ObjectMapper json;
  private final int historyLimit;
  private final Map<ResourceDef, TreeMap<String, ObjectNode>> objects = new HashMap<>();
  private final ArrayDeque<Event> history = new ArrayDeque<>();
  private final List<Watcher> watchers = new CopyOnWriteArrayList<>();

  /** object → field manager → status.devices keys it applied. */
  private final Map<String, Map<String, Set<String>>> deviceOwners = new HashMap<>();

  private long rv;
  private long compactedRv;

  Store(ObjectMapper json, int historyLimit) {
    this.json = json;
    this.historyLimit = historyLimit;
    for (ResourceDef d : ResourceDef.BUILT_IN) {
      objects.put(d, new TreeMap<>());
    }
  }

  record Event(ResourceDef def, String type, ObjectNode oldObj, ObjectNode newObj, long rv) {}

  record ListResult(List<ObjectNode> items, long resourceVersion) {}

  static String key(String ns, String name) {
    return ns.isEmpty() ? name : ns + "/" + name;
  }

  synchronized long resourceVersion() {
    return rv;
  }

  // --------------------------------------------------------------------------------------------
  // Reads

  synchronized ObjectNode get(ResourceDef def, String ns, String name) throws ApiError {
    ObjectNode o = objects.get(def).get(key(ns, name));
    if (o == null) {
      throw ApiError.notFound(def, name);
    }
    return o.deepCopy();
  }

  synchronized ListResult list(ResourceDef def, String ns, Predicate<JsonNode> filter) {
    List<ObjectNode> items = new ArrayList<>();
    for (ObjectNode o : objects.get(def).values()) {
      if (inNamespace(def, ns, o) && filter.test(o)) {
        items.add(o.deepCopy());
      }
    }
    return new ListResult(items, rv);
  }

  synchronized List<ObjectNode> all(ResourceDef def) {
    List<ObjectNode> out = new ArrayList<>();
    objects.get(def).values().forEach(o -> out.add(o.deepCopy()));
    return out;
  }

  private static boolean inNamespace(ResourceDef def, String ns, JsonNode o) {
    return !def.namespaced
        || ns.isEmpty()
        || ns.equals(o.path("metadata").path("namespace").asText());
  }

  // --------------------------------------------------------------------------------------------
  // Writes

  synchronized ObjectNode create(ResourceDef def, String ns, JsonNode body) throws ApiError {
    return create(def, ns, body, true);
  }

  /** Stores an object as given (plus server fields), bypassing the status reset: for seeding. */
  synchronized ObjectNode seed(ResourceDef def, JsonNode body) throws ApiError {
    String ns = body.path("metadata").path("namespace").asText("");
    return create(def, ns, body, false);
  }

  private ObjectNode create(ResourceDef def, String ns, JsonNode body, boolean resetStatus)
      throws ApiError {
    ObjectNode obj = checkKind(def, body).deepCopy();
    ObjectNode meta = obj.withObjectProperty("metadata");
    String bodyNs = meta.path("namespace").asText("");
    if (def.namespaced) {
      if (ns.isEmpty()) {
        ns = bodyNs;
      }
      if (ns.isEmpty()) {
        throw ApiError.badRequest(def.kind + " is namespaced: a namespace is required");
      }
      if (!bodyNs.isEmpty() && !bodyNs.equals(ns)) {
        throw ApiError.badRequest(
            "the namespace of the provided object does not match the namespace sent on the"
                + " request");
      }
      meta.put("namespace", ns);
    } else {
      meta.remove("namespace");
      ns = "";
    }
    String name = meta.path("name").asText("");
    if (name.isEmpty()) {
      String prefix = meta.path("generateName").asText("");
      if (prefix.isEmpty()) {
        throw ApiError.invalid(
            def, "", "metadata.name: Required value: name or generateName is required");
      }
      name = prefix + randomSuffix();
      meta.put("name", name);
    }
    if (objects.get(def).containsKey(key(ns, name))) {
      throw new ApiError(
          409, "AlreadyExists", def.qualifiedPlural() + " \"" + name + "\" already exists");
    }
    meta.put("uid", UUID.randomUUID().toString());
    meta.put("creationTimestamp", now());
    meta.put("generation", 1);
    meta.remove("deletionTimestamp");
    meta.remove("resourceVersion");
    if (resetStatus && def.hasStatus && !def.plural.equals("nodes")) {
      obj.remove("status");
    }
    pruneUnknownFields(obj);
    validate(def, null, obj);
    return write(def, null, obj, "ADDED");
  }

  synchronized ObjectNode update(
      ResourceDef def, String ns, String name, JsonNode body, boolean status) throws ApiError {
    ObjectNode existing = existing(def, ns, name);
    checkKind(def, body);
    JsonNode meta = body.path("metadata");
    if (!meta.path("name").asText(name).equals(name)) {
      throw ApiError.badRequest(
          "the name of the object ("
              + meta.path("name").asText()
              + ") does not match the name"
              + " on the URL ("
              + name
              + ")");
    }
    checkVersion(def, name, existing, meta.path("resourceVersion").asText(""));
    String uid = meta.path("uid").asText("");
    if (!uid.isEmpty() && !uid.equals(uid(existing))) {
      throw ApiError.conflict(
          def,
          name,
          "Precondition failed: UID in precondition: "
              + uid
              + ", UID in object meta: "
              + uid(existing));
    }
    ObjectNode merged;
    if (status) {
      merged = existing.deepCopy();
      if (body.has("status")) {
        merged.set("status", body.get("status").deepCopy());
      } else {
        merged.remove("status");
      }
    } else {
      merged = ((ObjectNode) body).deepCopy();
      keepServerFields(existing, merged);
      if (def.hasStatus) {
        if (existing.has("status")) {
          merged.set("status", existing.get("status").deepCopy());
        } else {
          merged.remove("status");
        }
      }
    }
    return update(def, existing, merged, status);
  }

  synchronized ObjectNode mergePatch(
      ResourceDef def, String ns, String name, String sub, JsonNode patch) throws ApiError {
    ObjectNode existing = existing(def, ns, name);
    if (!patch.isObject()) {
      throw ApiError.badRequest("a merge patch must be a JSON object");
    }
    String rvInPatch = patch.path("metadata").path("resourceVersion").asText("");
    checkVersion(def, name, existing, rvInPatch);
    ObjectNode merged = (ObjectNode) Patches.mergePatch(existing, patch);
    boolean status = "status".equals(sub);
    if (status) {
      ObjectNode base = existing.deepCopy();
      if (merged.has("status")) {
        base.set("status", merged.get("status"));
      } else {
        base.remove("status");
      }
      merged = base;
    } else {
      keepServerFields(existing, merged);
      if (def.hasStatus) {
        if (existing.has("status")) {
          merged.set("status", existing.get("status").deepCopy());
        } else {
          merged.remove("status");
        }
      }
    }
    return update(def, existing, merged, status);
  }

  synchronized ObjectNode apply(
      ResourceDef def,
      String ns,
      String name,
      String sub,
      JsonNode applied,
      String manager,
      boolean force)
      throws ApiError {
    if (!applied.isObject()) {
      throw ApiError.badRequest("an apply patch must be an object");
    }
    if (applied.path("apiVersion").asText("").isEmpty()
        || applied.path("kind").asText("").isEmpty()) {
      throw ApiError.badRequest("apiVersion and kind must be set in an apply patch");
    }
    checkKind(def, applied);
    String bodyName = applied.path("metadata").path("name").asText(name);
    if (!bodyName.equals(name)) {
      throw ApiError.badRequest(
          "the name of the object ("
              + bodyName
              + ") does not match the name on the URL ("
              + name
              + ")");
    }
    boolean status = "status".equals(sub);
    String k = key(def.namespaced ? ns : "", name);
    String objKey = def.plural + "/" + k;
    ObjectNode existing = objects.get(def).get(k);
    if (existing == null) {
      if (status) {
        throw ApiError.notFound(def, name);
      }
      ObjectNode body = ((ObjectNode) applied).deepCopy();
      body.withObjectProperty("metadata").put("name", name);
      recordManager(body, manager, sub);
      return create(def, ns, body, true);
    }
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
    return update(def, existing, merged, status);
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

  private void recordManager(ObjectNode obj, String manager, String sub) {
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
    e.put("time", now());
    e.put("fieldsType", "FieldsV1");
    e.putObject("fieldsV1");
    if (!sub.isEmpty()) {
      e.put("subresource", sub);
    }
  }

  synchronized ObjectNode delete(
      ResourceDef def, String ns, String name, String uidPrecondition, String rvPrecondition)
      throws ApiError {
    ObjectNode existing = existing(def, ns, name);
    if (!uidPrecondition.isEmpty() && !uidPrecondition.equals(uid(existing))) {
      throw ApiError.conflict(
          def,
          name,
          "Precondition failed: UID in precondition: "
              + uidPrecondition
              + ", UID in object meta: "
              + uid(existing));
    }
    String current = existing.path("metadata").path("resourceVersion").asText();
    if (!rvPrecondition.isEmpty() && !rvPrecondition.equals(current)) {
      throw ApiError.conflict(
          def,
          name,
          "Precondition failed: ResourceVersion in precondition: "
              + rvPrecondition
              + ", ResourceVersion in object meta: "
              + current);
    }
    return deleteObject(def, existing);
  }

  synchronized List<ObjectNode> deleteCollection(
      ResourceDef def, String ns, Predicate<JsonNode> filter) {
    List<ObjectNode> deleted = new ArrayList<>();
    for (ObjectNode o : new ArrayList<>(objects.get(def).values())) {
      if (inNamespace(def, ns, o) && filter.test(o)) {
        deleted.add(deleteObject(def, o));
      }
    }
    return deleted;
  }

  private ObjectNode deleteObject(ResourceDef def, ObjectNode existing) {
    JsonNode finalizers = existing.path("metadata").path("finalizers");
    if (finalizers.isArray() && finalizers.size() > 0) {
      if (existing.path("metadata").has("deletionTimestamp")) {
        return existing.deepCopy();
      }
      ObjectNode terminating = existing.deepCopy();
      terminating.withObjectProperty("metadata").put("deletionTimestamp", now());
      terminating.withObjectProperty("metadata").put("deletionGracePeriodSeconds", 0);
      return write(def, existing, terminating, "MODIFIED");
    }
    return remove(def, existing);
  }

  private ObjectNode remove(ResourceDef def, ObjectNode existing) {
    String k = objKey(existing);
    objects.get(def).remove(k);
    deviceOwners.remove(def.plural + "/" + k);
    ObjectNode gone = existing.deepCopy();
    gone.withObjectProperty("metadata").put("resourceVersion", Long.toString(++rv));
    record(new Event(def, "DELETED", existing, gone, rv));
    return gone.deepCopy();
  }

  private ObjectNode update(ResourceDef def, ObjectNode existing, ObjectNode merged, boolean status)
      throws ApiError {
    merged.put("apiVersion", def.apiVersion());
    merged.put("kind", def.kind);
    if (!status && !existing.path("spec").equals(merged.path("spec"))) {
      merged
          .withObjectProperty("metadata")
          .put("generation", existing.path("metadata").path("generation").asLong(1) + 1);
    }
    pruneUnknownFields(merged);
    validate(def, existing, merged);
    merged
        .withObjectProperty("metadata")
        .put("resourceVersion", existing.path("metadata").path("resourceVersion").asText());
    if (withoutVolatile(merged).equals(withoutVolatile(existing))) {
      return existing.deepCopy(); // no-op: the API server does not write (no new resourceVersion)
    }
    JsonNode finalizers = merged.path("metadata").path("finalizers");
    if (merged.path("metadata").has("deletionTimestamp")
        && (!finalizers.isArray() || finalizers.size() == 0)) {
      return remove(def, merged);
    }
    return write(def, existing, merged, "MODIFIED");
  }

  private static ObjectNode withoutVolatile(ObjectNode o) {
    ObjectNode c = o.deepCopy();
    JsonNode mf = c.path("metadata").path("managedFields");
    if (mf.isArray()) {
      for (JsonNode e : mf) {
        ((ObjectNode) e).remove("time");
      }
    }
    return c;
  }

  private ObjectNode write(ResourceDef def, ObjectNode old, ObjectNode obj, String type) {
    obj.put("apiVersion", def.apiVersion());
    obj.put("kind", def.kind);
    obj.withObjectProperty("metadata").put("resourceVersion", Long.toString(++rv));
    ObjectNode stored = obj.deepCopy();
    objects.get(def).put(objKey(stored), stored);
    record(new Event(def, type, old, stored, rv));
    return stored.deepCopy();
  }

  private void record(Event e) {
    history.addLast(e);
    while (history.size() > historyLimit) {
      compactedRv = history.removeFirst().rv();
    }
    for (Watcher w : watchers) {
      w.offer(e);
    }
  }

  private ObjectNode existing(ResourceDef def, String ns, String name) throws ApiError {
    ObjectNode o = objects.get(def).get(key(def.namespaced ? ns : "", name));
    if (o == null) {
      throw ApiError.notFound(def, name);
    }
    return o;
  }

  private static void checkVersion(ResourceDef def, String name, ObjectNode existing, String rv)
      throws ApiError {
    String current = existing.path("metadata").path("resourceVersion").asText();
    if (!rv.isEmpty() && !rv.equals(current)) {
      throw ApiError.conflict(
          def,
          name,
          "the object has been modified; please apply your changes to the latest version and try"
              + " again");
    }
  }

  private static JsonNode checkKind(ResourceDef def, JsonNode body) throws ApiError {
    if (!body.isObject()) {
      throw ApiError.badRequest("the request body must be a JSON object");
    }
    String kind = body.path("kind").asText("");
    String apiVersion = body.path("apiVersion").asText("");
    if (!kind.isEmpty() && !kind.equals(def.kind)) {
      throw ApiError.badRequest(
          "kind " + kind + " does not match the resource " + def.plural + " (" + def.kind + ")");
    }
    if (!apiVersion.isEmpty() && !apiVersion.equals(def.apiVersion())) {
      throw ApiError.badRequest(
          "apiVersion " + apiVersion + " is not served here; use " + def.apiVersion());
    }
    return body;
  }

  private static void keepServerFields(ObjectNode existing, ObjectNode merged) {
    ObjectNode em = (ObjectNode) existing.path("metadata");
    ObjectNode mm = merged.withObjectProperty("metadata");
    for (String f :
        List.of(
            "name",
            "namespace",
            "uid",
            "creationTimestamp",
            "generation",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "managedFields")) {
      if (em.has(f)) {
        mm.set(f, em.get(f).deepCopy());
      } else {
        mm.remove(f);
      }
    }
  }

  /** The few API validation rules a driver's code depends on. */
  /**
   * Drops the fields the resource.k8s.io/v1 schema does not know, as the real API server drops
   * unknown fields of a built-in type (it answers with a warning; this server sends none). Core
   * objects (Node, Pod) are kept as sent: the bundled OpenAPI document covers resource.k8s.io only.
   */
  private static void pruneUnknownFields(ObjectNode obj) {
    OpenApiSchemas.resourceV1().pruneUnknownFields(obj);
  }

  private void validate(ResourceDef def, ObjectNode old, ObjectNode obj) throws ApiError {
    String name = obj.path("metadata").path("name").asText();
    if (def.plural.equals("resourceclaims")) {
      if (old != null && !old.path("spec").equals(obj.path("spec"))) {
        throw ApiError.invalid(def, name, "spec: Invalid value: field is immutable");
      }
      JsonNode devices = obj.path("status").path("devices");
      if (devices.isArray() && devices.size() > 0) {
        Set<String> allocated = new HashSet<>();
        List<String> k = Patches.LIST_MAP_KEYS.get("status.devices");
        for (JsonNode r : obj.path("status").path("allocation").path("devices").path("results")) {
          allocated.add(Patches.key(r, k));
        }
        for (JsonNode d : devices) {
          if (!allocated.contains(Patches.key(d, k))) {
            throw ApiError.invalid(
                def,
                name,
                "status.devices: Invalid value: "
                    + d.path("driver").asText()
                    + "/"
                    + d.path("pool").asText()
                    + "/"
                    + d.path("device").asText()
                    + ": must be an allocated device in the claim");
          }
        }
      }
    }
    if (def.plural.equals("resourceslices") && old != null) {
      for (String f : List.of("driver", "nodeName")) {
        if (!old.path("spec").path(f).equals(obj.path("spec").path(f))) {
          throw ApiError.invalid(def, name, "spec." + f + ": Invalid value: field is immutable");
        }
      }
      if (!old.path("spec")
          .path("pool")
          .path("name")
          .equals(obj.path("spec").path("pool").path("name"))) {
        throw ApiError.invalid(def, name, "spec.pool.name: Invalid value: field is immutable");
      }
    }
  }

  private static String uid(JsonNode o) {
    return o.path("metadata").path("uid").asText();
  }

  private static String objKey(JsonNode o) {
    return key(
        o.path("metadata").path("namespace").asText(""), o.path("metadata").path("name").asText());
  }

  private static String randomSuffix() {
    StringBuilder sb = new StringBuilder(5);
    for (int i = 0; i < 5; i++) {
      sb.append(NAME_CHARS.charAt(RANDOM.nextInt(NAME_CHARS.length())));
    }
    return sb.toString();
  }

  static String now() {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }

  // --------------------------------------------------------------------------------------------
  // Watches

  /**
   * Registers a watcher and queues its initial events atomically, so no write can fall between.
   *
   * @param fromRv empty or "0": synthetic ADDED events for what exists now; otherwise every event
   *     after that version, or 410 Expired when the history no longer reaches back that far
   */
  /**
   * Opens a watch. With {@code initialEvents} (a streaming list, {@code sendInitialEvents=true},
   * which client-go's informers use since 1.35) the stream starts with the current objects and a
   * bookmark marking their end, whatever {@code fromRv} says: the real server then serves a state
   * at least as new as {@code fromRv}, and this one always serves the newest.
   */
  synchronized Watcher watch(
      ResourceDef def,
      String ns,
      Predicate<JsonNode> filter,
      String fromRv,
      boolean bookmarks,
      boolean initialEvents)
      throws ApiError {
    Watcher w = new Watcher(def, ns, filter, bookmarks, json);
    if (initialEvents) {
      for (ObjectNode o : objects.get(def).values()) {
        if (inNamespace(def, ns, o) && filter.test(o)) {
          w.send("ADDED", o);
        }
      }
      w.initialEventsEnd(rv);
    } else if (fromRv.isEmpty() || fromRv.equals("0")) {
      for (ObjectNode o : objects.get(def).values()) {
        if (inNamespace(def, ns, o) && filter.test(o)) {
          w.send("ADDED", o);
        }
      }
    } else {
      long from;
      try {
        from = Long.parseLong(fromRv);
      } catch (NumberFormatException e) {
        throw ApiError.badRequest("invalid resourceVersion \"" + fromRv + "\"");
      }
      if (from < compactedRv) {
        w.expire("too old resource version: " + from + " (" + (compactedRv + 1) + ")");
        return w;
      }
      for (Event e : history) {
        if (e.rv() > from) {
          w.offer(e);
        }
      }
    }
    watchers.add(w);
    return w;
  }

  synchronized void bookmark() {
    for (Watcher w : watchers) {
      w.bookmark(rv);
    }
  }

  void unregister(Watcher w) {
    watchers.remove(w);
  }

  /** Ends every open watch stream (cleanly, as a server timeout would). */
  void endWatches() {
    for (Watcher w : watchers) {
      w.end();
      watchers.remove(w);
    }
  }

  int openWatches() {
    return watchers.size();
  }
}
