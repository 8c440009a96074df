package io.dra4j.testkit.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/** Label selectors ({@code =, ==, !=, in, notin, exists, !exists}) and field selectors. */
final class Selectors {
  private Selectors() {}

  static Predicate<JsonNode> labels(String selector) throws ApiError {
    Predicate<JsonNode> all = o -> true;
    for (String req : split(selector)) {
      all = all.and(labelRequirement(req.trim(), selector));
    }
    return all;
  }

  private static Predicate<JsonNode> labelRequirement(String req, String selector) throws ApiError {
    if (req.isEmpty()) {
      throw ApiError.badRequest("invalid label selector \"" + selector + "\": empty requirement");
    }
    java.util.regex.Matcher set =
        java.util.regex.Pattern.compile("^([^\\s!=()]+)\\s+(in|notin)\\s*\\((.*)\\)$").matcher(req);
    if (set.matches()) {
      String key = set.group(1);
      Set<String> values = Set.copyOf(trimAll(set.group(3).split(",")));
      boolean in = set.group(2).equals("in");
      return o -> {
        JsonNode v = o.path("metadata").path("labels").path(key);
        boolean has = v.isTextual() && values.contains(v.asText());
        return in ? has : !has;
      };
    }
    if (req.startsWith("!")) {
      String key = req.substring(1).trim();
      checkKey(key, selector);
      return o -> !o.path("metadata").path("labels").has(key);
    }
    int ne = req.indexOf("!=");
    if (ne > 0) {
      String key = req.substring(0, ne).trim();
      String value = req.substring(ne + 2).trim();
      checkKey(key, selector);
      return o -> !value.equals(o.path("metadata").path("labels").path(key).asText(null));
    }
    int eq = req.indexOf('=');
    if (eq > 0) {
      String key = req.substring(0, eq).trim();
      String value = req.substring(req.startsWith("==", eq) ? eq + 2 : eq + 1).trim();
      checkKey(key, selector);
      return o -> value.equals(o.path("metadata").path("labels").path(key).asText(null));
    }
    checkKey(req, selector);
    return o -> o.path("metadata").path("labels").has(req);
  }

  private static void checkKey(String key, String selector) throws ApiError {
    if (key.isEmpty() || !key.matches("[A-Za-z0-9._/-]+")) {
      throw ApiError.badRequest(
          "invalid label selector \"" + selector + "\": bad key \"" + key + "\"");
    }
  }

  static Predicate<JsonNode> fields(String selector, ResourceDef def) throws ApiError {
    Predicate<JsonNode> all = o -> true;
    for (String req : split(selector)) {
      req = req.trim();
      boolean negate;
      int at;
      int len;
      if ((at = req.indexOf("!=")) > 0) {
        negate = true;
        len = 2;
      } else if ((at = req.indexOf("==")) > 0) {
        negate = false;
        len = 2;
      } else if ((at = req.indexOf('=')) > 0) {
        negate = false;
        len = 1;
      } else {
        throw ApiError.badRequest(
            "invalid field selector \"" + selector + "\": expected field=value or field!=value");
      }
      String label = req.substring(0, at).trim();
      String value = req.substring(at + len).trim();
      if (!def.fieldLabels.contains(label)) {
        throw ApiError.badRequest(
            "field label not supported: "
                + label
                + " (supported for "
                + def.plural
                + ": "
                + new java.util.TreeSet<>(def.fieldLabels)
                + ")");
      }
      all = all.and(o -> value.equals(ResourceDef.field(o, label)) != negate);
    }
    return all;
  }

  /** Splits on commas that are not inside parentheses. */
  private static List<String> split(String selector) {
    List<String> out = new ArrayList<>();
    if (selector == null || selector.isBlank()) {
      return out;
    }
    int depth = 0;
    int start = 0;
    for (int i = 0; i < selector.length(); i++) {
      char c = selector.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        out.add(selector.substring(start, i));
        start = i + 1;
      }
    }
    out.add(selector.substring(start));
    return out;
  }

  private static List<String> trimAll(String[] parts) {
    List<String> out = new ArrayList<>();
    for (String p : parts) {
      if (!p.isBlank()) {
        out.add(p.trim());
      }
    }
    return out;
  }
}
