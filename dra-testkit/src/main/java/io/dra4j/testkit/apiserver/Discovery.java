package io.dra4j.testkit.apiserver;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The API server's discovery documents, as kubectl and client-go read them before any request: the
 * core versions at {@code /api}, the groups at {@code /apis} and {@code /apis/GROUP}, and each
 * group version's resource list ({@code /api/v1}, {@code /apis/resource.k8s.io/v1}).
 *
 * <p>Only the unaggregated (legacy) format is served: clients that ask for the aggregated one
 * ({@code as=APIGroupDiscoveryList}) fall back to it when the answer is plain {@code
 * application/json}, as they do against servers older than 1.26.
 */
final class Discovery {
  private static final List<String> VERBS =
      List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");
  private static final List<String> STATUS_VERBS = List.of("get", "patch", "update");

  private final ObjectMapper json;

  Discovery(ObjectMapper json) {
    this.json = json;
  }

  /**
   * The document for a discovery path, or empty when the path is not one (a resource path).
   *
   * @param serverAddress host:port the client reached, for {@code serverAddressByClientCIDRs}
   */
  Optional<ObjectNode> document(String path, String serverAddress) {
    String p =
        path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
    if (p.equals("/api")) {
      return Optional.of(coreVersions(serverAddress));
    }
    if (p.equals("/apis")) {
      ObjectNode list = json.createObjectNode();
      list.put("kind", "APIGroupList");
      list.put("apiVersion", "v1");
      ArrayNode groups = list.putArray("groups");
      for (String group : groups()) {
        groups.add(group(group));
      }
      return Optional.of(list);
    }
    String[] parts = p.split("/");
    if (parts.length == 3 && parts[1].equals("api") && versions("").contains(parts[2])) {
      return Optional.of(resources("", parts[2]));
    }
    if (parts.length == 3 && parts[1].equals("apis") && groups().contains(parts[2])) {
      return Optional.of(group(parts[2]));
    }
    if (parts.length == 4 && parts[1].equals("apis") && versions(parts[2]).contains(parts[3])) {
      return Optional.of(resources(parts[2], parts[3]));
    }
    return Optional.empty();
  }

  private ObjectNode coreVersions(String serverAddress) {
    ObjectNode v = json.createObjectNode();
    v.put("kind", "APIVersions");
    ArrayNode versions = v.putArray("versions");
    versions("").forEach(versions::add);
    ObjectNode cidr = v.putArray("serverAddressByClientCIDRs").addObject();
    cidr.put("clientCIDR", "0.0.0.0/0");
    cidr.put("serverAddress", serverAddress);
    return v;
  }

  private ObjectNode group(String group) {
    ObjectNode g = json.createObjectNode();
    g.put("kind", "APIGroup");
    g.put("apiVersion", "v1");
    g.put("name", group);
    ArrayNode versions = g.putArray("versions");
    for (String version : versions(group)) {
      ObjectNode v = versions.addObject();
      v.put("groupVersion", group + "/" + version);
      v.put("version", version);
    }
    g.set("preferredVersion", versions.get(0).deepCopy());
    return g;
  }

  private ObjectNode resources(String group, String version) {
    ObjectNode list = json.createObjectNode();
    list.put("kind", "APIResourceList");
    list.put("apiVersion", "v1");
    list.put("groupVersion", group.isEmpty() ? version : group + "/" + version);
    ArrayNode resources = list.putArray("resources");
    for (ResourceDef def : ResourceDef.BUILT_IN) {
      if (!def.group.equals(group) || !def.version.equals(version)) {
        continue;
      }
      ObjectNode r = resource(resources, def.plural, def);
      r.put("singularName", def.kind.toLowerCase(Locale.ROOT));
      ArrayNode verbs = r.putArray("verbs");
      VERBS.forEach(verbs::add);
      if (!def.shortNames.isEmpty()) {
        ArrayNode shortNames = r.putArray("shortNames");
        def.shortNames.forEach(shortNames::add);
      }
      if (def.hasStatus) {
        ObjectNode status = resource(resources, def.plural + "/status", def);
        status.put("singularName", "");
        ArrayNode statusVerbs = status.putArray("verbs");
        STATUS_VERBS.forEach(statusVerbs::add);
      }
    }
    return list;
  }

  private static ObjectNode resource(ArrayNode resources, String name, ResourceDef def) {
    ObjectNode r = resources.addObject();
    r.put("name", name);
    r.put("namespaced", def.namespaced);
    r.put("kind", def.kind);
    return r;
  }

  /** Named groups in the order first served; the core group ("") is not one of them. */
  private static Set<String> groups() {
    Set<String> groups = new LinkedHashSet<>();
    for (ResourceDef def : ResourceDef.BUILT_IN) {
      if (!def.group.isEmpty()) {
        groups.add(def.group);
      }
    }
    return groups;
  }

  private static List<String> versions(String group) {
    List<String> versions = new ArrayList<>();
    for (ResourceDef def : ResourceDef.BUILT_IN) {
      if (def.group.equals(group) && !versions.contains(def.version)) {
        versions.add(def.version);
      }
    }
    return versions;
  }
}
