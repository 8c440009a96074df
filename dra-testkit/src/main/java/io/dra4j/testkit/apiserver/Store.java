package io.dra4j.testkit.apiserver;

import static io.dra4j.testkit.apiserver.WriteRules.checkKind;
import static io.dra4j.testkit.apiserver.WriteRules.checkName;
import static io.dra4j.testkit.apiserver.WriteRules.checkUid;
import static io.dra4j.testkit.apiserver.WriteRules.checkVersion;
import static io.dra4j.testkit.apiserver.WriteRules.keepServerOwned;
import static io.dra4j.testkit.apiserver.WriteRules.pruneUnknownFields;
import static io.dra4j.testkit.apiserver.WriteRules.validate;
import static io.dra4j.testkit.apiserver.WriteRules.withStatusOf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * The in-memory object store: one global resourceVersion counter (like etcd), and the writes of the
 * API server (optimistic concurrency, preconditions, generateName, generation, finalizers, status
 * subresources, apply). The rules a write must pass are {@link WriteRules}', apply's merge and
 * ownership {@link ServerSideApply}'s, the event history and open watches {@link Watches}'.
 */
final class Store {
  private static final String NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Map<ResourceDef, TreeMap<String, ObjectNode>> objects = new HashMap<>();
  private final Watches watches;
  private final ServerSideApply serverSideApply = new ServerSideApply();

  private long rv;

  Store(ObjectMapper json, int historyLimit) {
    this.watches = new Watches(json, historyLimit);
    for (ResourceDef d : ResourceDef.BUILT_IN) {
      objects.put(d, new TreeMap<>());
    }
  }

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
    matching(def, ns, filter).forEach(o -> items.add(o.deepCopy()));
    return new ListResult(items, rv);
  }

  synchronized List<ObjectNode> all(ResourceDef def) {
    List<ObjectNode> out = new ArrayList<>();
    objects.get(def).values().forEach(o -> out.add(o.deepCopy()));
    return out;
  }

  /** The stored objects (not copies) in the namespace that pass the filter. */
  private List<ObjectNode> matching(ResourceDef def, String ns, Predicate<JsonNode> filter) {
    List<ObjectNode> out = new ArrayList<>();
    for (ObjectNode o : objects.get(def).values()) {
      if (inNamespace(def, ns, o) && filter.test(o)) {
        out.add(o);
      }
    }
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
    checkName(body, name);
    checkVersion(def, name, existing, meta.path("resourceVersion").asText(""));
    checkUid(def, name, existing, meta.path("uid").asText(""));
    ObjectNode merged;
    if (status) {
      merged = withStatusOf(existing, body);
    } else {
      merged = ((ObjectNode) body).deepCopy();
      keepServerOwned(def, existing, merged);
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
      merged = withStatusOf(existing, merged);
    } else {
      keepServerOwned(def, existing, merged);
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
    ServerSideApply.check(def, name, applied);
    boolean status = "status".equals(sub);
    String k = key(def.namespaced ? ns : "", name);
    ObjectNode existing = objects.get(def).get(k);
    if (existing == null) {
      if (status) {
        throw ApiError.notFound(def, name);
      }
      return create(def, ns, serverSideApply.toCreate(applied, name, manager, sub), true);
    }
    ObjectNode merged =
        serverSideApply.merge(
            def, name, def.plural + "/" + k, existing, applied, manager, sub, force);
    return update(def, existing, merged, status);
  }

  synchronized ObjectNode delete(
      ResourceDef def, String ns, String name, String uidPrecondition, String rvPrecondition)
      throws ApiError {
    ObjectNode existing = existing(def, ns, name);
    checkUid(def, name, existing, uidPrecondition);
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
    serverSideApply.forget(def.plural + "/" + k);
    ObjectNode gone = existing.deepCopy();
    gone.withObjectProperty("metadata").put("resourceVersion", Long.toString(++rv));
    watches.record(new Watches.Event(def, "DELETED", existing, gone, rv));
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
    watches.record(new Watches.Event(def, type, old, stored, rv));
    return stored.deepCopy();
  }

  private ObjectNode existing(ResourceDef def, String ns, String name) throws ApiError {
    ObjectNode o = objects.get(def).get(key(def.namespaced ? ns : "", name));
    if (o == null) {
      throw ApiError.notFound(def, name);
    }
    return o;
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
   * Opens a watch ({@link Watches#open}), under the store's lock so that no write falls between its
   * initial events and the events after them.
   */
  synchronized Watcher watch(
      ResourceDef def,
      String ns,
      Predicate<JsonNode> filter,
      String fromRv,
      boolean bookmarks,
      boolean initialEvents)
      throws ApiError {
    return watches.open(
        def, ns, filter, fromRv, bookmarks, initialEvents, matching(def, ns, filter), rv);
  }

  synchronized void bookmark() {
    watches.bookmark(rv);
  }

  Watches watches() {
    return watches;
  }
}
