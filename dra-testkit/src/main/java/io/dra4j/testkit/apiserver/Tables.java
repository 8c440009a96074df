package io.dra4j.testkit.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Server-side printing: the {@code meta.k8s.io/v1 Table} that {@code kubectl get} asks for ({@code
 * Accept: application/json;as=Table;v=v1;g=meta.k8s.io}), with the columns the real API server
 * prints for each resource (ResourceSlice: Name, Node, Driver, Pool, Age; ResourceClaim: Name,
 * State, Age; the others: Name, Age).
 */
final class Tables {
  private record Column(String name, String description, Function<JsonNode, String> cell) {}

  private static final Column NAME =
      new Column("Name", "the object's name", o -> o.path("metadata").path("name").asText());

  private final ObjectMapper json;
  private final Clock clock;

  Tables(ObjectMapper json, Clock clock) {
    this.json = json;
    this.clock = clock;
  }

  /** Whether the client asked for a Table (kubectl does; client libraries do not). */
  static boolean wanted(String accept) {
    return accept != null && accept.contains("as=Table");
  }

  /**
   * A Table of the objects.
   *
   * @param includeObject {@code None}, {@code Object}, or (the default) {@code
   *     PartialObjectMetadata}: what each row carries besides its cells
   */
  ObjectNode table(
      ResourceDef def,
      List<? extends JsonNode> objects,
      String resourceVersion,
      String includeObject) {
    List<Column> columns = columns(def);
    ObjectNode table = json.createObjectNode();
    table.put("kind", "Table");
    table.put("apiVersion", "meta.k8s.io/v1");
    table.putObject("metadata").put("resourceVersion", resourceVersion);
    ArrayNode definitions = table.putArray("columnDefinitions");
    for (Column c : columns) {
      ObjectNode d = definitions.addObject();
      d.put("name", c.name());
      d.put("type", "string");
      d.put("format", c == NAME ? "name" : "");
      d.put("description", c.description());
      d.put("priority", 0);
    }
    ArrayNode rows = table.putArray("rows");
    for (JsonNode o : objects) {
      ObjectNode row = rows.addObject();
      ArrayNode cells = row.putArray("cells");
      for (Column c : columns) {
        cells.add(c.cell().apply(o));
      }
      switch (includeObject) {
        case "None":
          break;
        case "Object":
          ObjectNode full = o.deepCopy();
          full.put("apiVersion", def.apiVersion());
          full.put("kind", def.kind);
          row.set("object", full);
          break;
        default:
          ObjectNode partial = row.putObject("object");
          partial.put("kind", "PartialObjectMetadata");
          partial.put("apiVersion", "meta.k8s.io/v1");
          partial.set("metadata", o.path("metadata").deepCopy());
      }
    }
    return table;
  }

  private List<Column> columns(ResourceDef def) {
    Column age =
        new Column(
            "Age",
            "how long ago the object was created",
            o -> age(o.path("metadata").path("creationTimestamp").asText("")));
    List<Column> columns = new ArrayList<>();
    columns.add(NAME);
    switch (def.plural) {
      case "resourceslices":
        columns.add(
            new Column(
                "Node",
                "the node whose devices the slice lists",
                o -> o.path("spec").path("nodeName").asText("")));
        columns.add(
            new Column(
                "Driver",
                "the DRA driver that published the slice",
                o -> o.path("spec").path("driver").asText("")));
        columns.add(
            new Column(
                "Pool",
                "the pool the slice belongs to",
                o -> o.path("spec").path("pool").path("name").asText("")));
        break;
      case "resourceclaims":
        columns.add(
            new Column(
                "State",
                "A summary of the current state (allocated, pending, reserved, etc.).",
                Tables::claimState));
        break;
      default:
        break;
    }
    columns.add(age);
    return columns;
  }

  /** The real server's summary: deleted, pending, allocated, reserved, comma-separated. */
  private static String claimState(JsonNode claim) {
    List<String> states = new ArrayList<>();
    boolean deleted = claim.path("metadata").hasNonNull("deletionTimestamp");
    if (deleted) {
      states.add("deleted");
    }
    JsonNode status = claim.path("status");
    if (!status.hasNonNull("allocation")) {
      if (!deleted) {
        states.add("pending");
      }
    } else {
      states.add("allocated");
      if (status.path("reservedFor").size() > 0) {
        states.add("reserved");
      }
    }
    return String.join(",", states);
  }

  /** kubectl's human duration: 2-3 significant figures (45s, 3m20s, 2h5m, 3d4h). */
  String age(String timestamp) {
    Instant created;
    try {
      created = Instant.parse(timestamp);
    } catch (DateTimeParseException e) {
      return "<unknown>";
    }
    return humanDuration(Duration.between(created, clock.instant()));
  }

  static String humanDuration(Duration d) {
    long seconds = d.getSeconds();
    if (seconds < -1) {
      return "<invalid>";
    }
    if (seconds < 0) {
      return "0s";
    }
    if (seconds < 120) {
      return seconds + "s";
    }
    long minutes = seconds / 60;
    if (minutes < 10) {
      return seconds % 60 == 0 ? minutes + "m" : minutes + "m" + seconds % 60 + "s";
    }
    if (minutes < 180) {
      return minutes + "m";
    }
    long hours = minutes / 60;
    if (hours < 8) {
      return minutes % 60 == 0 ? hours + "h" : hours + "h" + minutes % 60 + "m";
    }
    if (hours < 48) {
      return hours + "h";
    }
    long days = hours / 24;
    if (hours < 24 * 8) {
      return hours % 24 == 0 ? days + "d" : days + "d" + hours % 24 + "h";
    }
    if (days < 365 * 2) {
      return days + "d";
    }
    long years = days / 365;
    if (days < 365 * 8) {
      return days % 365 == 0 ? years + "y" : years + "y" + days % 365 + "d";
    }
    return years + "y";
  }
}
