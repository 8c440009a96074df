package io.dra4j.runtime.cdi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.cdi.Hook;
import io.dra4j.api.cdi.Mount;
import java.util.List;

/**
 * Writes CDI JSON field by field rather than through data binding, so the output holds exactly the
 * CDI field names and nothing a strict parser could reject.
 */
final class CdiSpecJson {
  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private CdiSpecJson() {}

  static String write(CdiSpec spec) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("cdiVersion", spec.cdiVersion().text());
    root.put("kind", spec.kind().toString());
    ArrayNode devices = root.putArray("devices");
    for (CdiDevice d : spec.devices()) {
      ObjectNode dn = devices.addObject();
      dn.put("name", d.name());
      dn.set("containerEdits", edits(d.edits()));
    }
    if (!spec.edits().isEmpty()) {
      root.set("containerEdits", edits(spec.edits()));
    }
    try {
      return MAPPER.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize a JSON tree", e);
    }
  }

  private static ObjectNode edits(ContainerEdits e) {
    ObjectNode n = MAPPER.createObjectNode();
    strings(n, "env", e.env());
    if (!e.deviceNodes().isEmpty()) {
      ArrayNode a = n.putArray("deviceNodes");
      for (DeviceNode d : e.deviceNodes()) {
        ObjectNode o = a.addObject();
        o.put("path", d.path());
        d.hostPath().ifPresent(v -> o.put("hostPath", v));
        d.type().ifPresent(v -> o.put("type", v));
        d.major().ifPresent(v -> o.put("major", v));
        d.minor().ifPresent(v -> o.put("minor", v));
        d.fileMode().ifPresent(v -> o.put("fileMode", v));
        d.permissions().ifPresent(v -> o.put("permissions", v));
        d.uid().ifPresent(v -> o.put("uid", v));
        d.gid().ifPresent(v -> o.put("gid", v));
      }
    }
    if (!e.mounts().isEmpty()) {
      ArrayNode a = n.putArray("mounts");
      for (Mount m : e.mounts()) {
        ObjectNode o = a.addObject();
        o.put("hostPath", m.hostPath());
        o.put("containerPath", m.containerPath());
        m.type().ifPresent(v -> o.put("type", v));
        strings(o, "options", m.options());
      }
    }
    if (!e.hooks().isEmpty()) {
      ArrayNode a = n.putArray("hooks");
      for (Hook h : e.hooks()) {
        ObjectNode o = a.addObject();
        o.put("hookName", h.hookName());
        o.put("path", h.path());
        strings(o, "args", h.args());
        strings(o, "env", h.env());
        h.timeout().ifPresent(v -> o.put("timeout", v));
      }
    }
    return n;
  }

  private static void strings(ObjectNode n, String field, List<String> values) {
    if (!values.isEmpty()) {
      ArrayNode a = n.putArray(field);
      values.forEach(a::add);
    }
  }
}
