package io.dra4j.examples.hostdev;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dra4j.examples.hostdev.DeviceSpec.Group;
import io.dra4j.examples.hostdev.DeviceSpec.PathSpec;
import io.dra4j.examples.hostdev.DeviceSpec.PathType;
import io.dra4j.examples.hostdev.DeviceSpec.UsbSpec;
import io.dra4j.kube.KubeNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads generic-device-plugin's device specifications (github.com/squat/generic-device-plugin at
 * {@code v0.0.0-20260515115838-2cc50b05d4d2}: its {@code config.go} and {@code
 * deviceplugin/generic.go}, {@code path.go}, {@code usb.go}), so that one configuration serves the
 * device plugin and this driver during a migration: repeated {@code --device SPEC} values (each a
 * JSON or YAML object), or a config file with a {@code devices} (or {@code device}) list and an
 * optional {@code domain}, and {@code --domain} (default {@value #DEFAULT_DOMAIN}).
 *
 * <p>As the plugin does: keys match without regard to case (Go's {@code encoding/json}); the name
 * is trimmed and must match {@code [a-z0-9][-a-z0-9]*[a-z0-9]}; the domain must be a DNS subdomain;
 * paths and mount paths are trimmed; a group has paths or USB devices, not both; defaults are
 * {@code count} 1, {@code limit} 1, {@code type Device}, {@code permissions mrw} for device nodes;
 * USB {@code vendor} and {@code product} are hexadecimal ({@code "1a86"}; an unquoted number is
 * read as hexadecimal digits, as the plugin reads a flag). Stricter, so that a mistake is an error
 * rather than a device that silently does nothing: an unknown key, a {@code type} other than {@code
 * Device} or {@code Mount}, permissions outside {@code rwm}, a relative path, two devices of one
 * name, and devices given both as flags and in a file (the plugin would ignore the file's). Keys of
 * the plugin's own flags in a config file ({@code log-level}, {@code listen}, {@code
 * plugin-directory}) are ignored.
 *
 * <p>Every error names where the value came from ({@code --device #2}, or the file and the index),
 * the device, the field and the rule.
 */
public final class DeviceSpecs {
  /** The plugin's default domain. */
  public static final String DEFAULT_DOMAIN = "devic.es";

  private static final Pattern NAME = Pattern.compile("[a-z0-9][-a-z0-9]*[a-z0-9]");
  private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]{1,4}");
  private static final Set<String> PLUGIN_FLAGS =
      Set.of("log-level", "listen", "plugin-directory", "config", "version");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private DeviceSpecs() {}

  /**
   * The devices of {@code --device} values or of a config file, with the plugin's defaults.
   *
   * @param flags the {@code --device} values, in order
   * @param configFile the file of {@code --device-config}, if given
   * @param domainFlag {@code --domain}, if given; it beats the file's {@code domain}
   * @throws IllegalArgumentException naming the source, the device, the field and the rule
   */
  public static List<DeviceSpec> parse(
      List<String> flags, Optional<Path> configFile, Optional<String> domainFlag) {
    if (!flags.isEmpty() && configFile.isPresent()) {
      throw new IllegalArgumentException(
          "devices are given as --device flags and in --device-config "
              + configFile.get()
              + ": give them one way (generic-device-plugin would ignore the file's)");
    }
    List<Source> sources = new ArrayList<>();
    Optional<String> domain = domainFlag;
    if (configFile.isPresent()) {
      JsonNode root = read(configFile.get());
      String where = "--device-config " + configFile.get();
      Obj top = new Obj(root, where, Set.of("devices", "device", "domain"), PLUGIN_FLAGS);
      if (domain.isEmpty()) {
        domain = top.string("domain");
      }
      Optional<JsonNode> list = top.get("devices").or(() -> top.get("device"));
      if (list.isPresent() && !list.get().isArray()) {
        throw new IllegalArgumentException(where + ": devices must be a list");
      }
      int i = 0;
      for (JsonNode n : list.orElse(YAML.createArrayNode())) {
        sources.add(new Source(where + ": devices[" + i++ + "]", n));
      }
    } else {
      for (int i = 0; i < flags.size(); i++) {
        String where = "--device #" + (i + 1);
        try {
          sources.add(new Source(where, YAML.readTree(flags.get(i))));
        } catch (JsonProcessingException e) {
          throw new IllegalArgumentException(
              where + " (" + flags.get(i) + ") is not JSON or YAML: " + e.getOriginalMessage(), e);
        }
      }
    }
    String d = domain.orElse(DEFAULT_DOMAIN).trim();
    if (!KubeNames.dnsSubdomain(d).isEmpty()) {
      throw new IllegalArgumentException(
          "domain \""
              + d
              + "\" must be a DNS subdomain (lower-case letters, digits, '-' and '.', at most 253"
              + " characters)");
    }
    if (sources.isEmpty()) {
      throw new IllegalArgumentException(
          "no device: give at least one --device SPEC (or --device-config FILE), e.g. --device"
              + " '{\"name\": \"fuse\", \"groups\": [{\"count\": 10, \"paths\": [{\"path\":"
              + " \"/dev/fuse\"}]}]}'");
    }
    List<DeviceSpec> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (Source s : sources) {
      DeviceSpec spec = device(s, d);
      if (!names.add(spec.name())) {
        throw new IllegalArgumentException(
            s.where() + ": device \"" + spec.name() + "\" is given twice");
      }
      out.add(spec);
    }
    return List.copyOf(out);
  }

  private record Source(String where, JsonNode node) {}

  private static JsonNode read(Path file) {
    try {
      JsonNode n = YAML.readTree(Files.readString(file));
      return n == null ? YAML.createObjectNode() : n;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "--device-config " + file + " is not YAML or JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("--device-config " + file + " cannot be read: " + e, e);
    }
  }

  private static DeviceSpec device(Source s, String domain) {
    Obj o = new Obj(s.node(), s.where(), Set.of("name", "groups"), Set.of());
    String raw = o.string("name").orElse("");
    String name = raw.trim();
    String where = s.where() + " (device \"" + raw + "\")";
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          where
              + ": name must match the regular expression \"[a-z0-9][-a-z0-9]*[a-z0-9]\", as"
              + " generic-device-plugin requires");
    }
    if (name.length() > 63) {
      throw new IllegalArgumentException(
          where + ": name has " + name.length() + " characters, the limit is 63");
    }
    o.where = where;
    List<Group> groups = new ArrayList<>();
    int i = 0;
    for (JsonNode g : o.list("groups")) {
      groups.add(group(where + ": groups[" + i++ + "]", g));
    }
    return new DeviceSpec(name, domain + "/" + name, groups);
  }

  private static Group group(String where, JsonNode node) {
    Obj o = new Obj(node, where, Set.of("paths", "usb", "count"), Set.of());
    List<PathSpec> paths = new ArrayList<>();
    int i = 0;
    for (JsonNode p : o.list("paths")) {
      paths.add(path(where + ".paths[" + i++ + "]", p));
    }
    List<UsbSpec> usb = new ArrayList<>();
    i = 0;
    for (JsonNode u : o.list("usb")) {
      usb.add(usb(where + ".usb[" + i++ + "]", u));
    }
    if (!paths.isEmpty() && !usb.isEmpty()) {
      throw new IllegalArgumentException(where + ": cannot define both paths and usb in one group");
    }
    int count = o.natural("count").orElse(0);
    return new Group(paths, usb, count == 0 ? 1 : count);
  }

  private static PathSpec path(String where, JsonNode node) {
    Obj o =
        new Obj(
            node,
            where,
            Set.of("path", "mountPath", "permissions", "readOnly", "type", "limit", "optional"),
            Set.of());
    String path = o.string("path").orElse("").trim();
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException(
          where + ".path \"" + path + "\" must be an absolute path on the host");
    }
    try {
      Glob.check(path);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ".path: " + e.getMessage(), e);
    }
    Optional<String> mountPath = o.string("mountPath").map(String::trim).filter(m -> !m.isEmpty());
    if (mountPath.isPresent() && !mountPath.get().startsWith("/")) {
      throw new IllegalArgumentException(
          where + ".mountPath \"" + mountPath.get() + "\" must be an absolute path");
    }
    String typeText = o.string("type").orElse("");
    PathType type;
    switch (typeText) {
      case "", "Device" -> type = PathType.DEVICE;
      case "Mount" -> type = PathType.MOUNT;
      default ->
          throw new IllegalArgumentException(
              where + ".type \"" + typeText + "\" must be Device or Mount");
    }
    String permissions = o.string("permissions").orElse("");
    if (permissions.isEmpty() && type == PathType.DEVICE) {
      permissions = "mrw";
    }
    if (!permissions.matches("[rwm]*")
        || permissions.chars().distinct().count() < permissions.length()) {
      throw new IllegalArgumentException(
          where
              + ".permissions \""
              + permissions
              + "\" must be made of r (read), w (write) and m (mknod), each at most once");
    }
    int limit = o.natural("limit").orElse(0);
    return new PathSpec(
        path,
        mountPath,
        permissions,
        o.bool("readOnly"),
        type,
        limit == 0 ? 1 : limit,
        o.bool("optional"));
  }

  private static UsbSpec usb(String where, JsonNode node) {
    Obj o = new Obj(node, where, Set.of("vendor", "product", "serial"), Set.of());
    return new UsbSpec(
        hex(where + ".vendor", o.get("vendor")),
        hex(where + ".product", o.get("product")),
        o.string("serial").orElse(""));
  }

  /** A USB id: hexadecimal text, quoted or not (the plugin reads a flag's number as hex digits). */
  private static int hex(String where, Optional<JsonNode> node) {
    String text = node.filter(n -> !n.isNull()).map(JsonNode::asText).orElse("").trim();
    if (text.isEmpty()) {
      return 0;
    }
    if (!HEX.matcher(text).matches()) {
      throw new IllegalArgumentException(
          where
              + " \""
              + text
              + "\" must be a hexadecimal USB id of at most 4 digits, e.g. \"1a86\"");
    }
    return Integer.parseInt(text, 16);
  }

  /** An object whose keys are matched without regard to case, as Go's encoding/json does. */
  private static final class Obj {
    /** Where errors say the object is; refined once the object's name is known. */
    String where;

    private final Map<String, JsonNode> fields = new LinkedHashMap<>();

    Obj(JsonNode node, String where, Set<String> known, Set<String> ignored) {
      this.where = where;
      if (node == null || !node.isObject()) {
        throw new IllegalArgumentException(where + " must be an object");
      }
      Map<String, String> canonical = new LinkedHashMap<>();
      for (String k : known) {
        canonical.put(k.toLowerCase(Locale.ROOT), k);
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String key = e.getKey().toLowerCase(Locale.ROOT);
        if (ignored.contains(key)) {
          continue;
        }
        if (!canonical.containsKey(key)) {
          throw new IllegalArgumentException(
              where
                  + ": unknown field \""
                  + e.getKey()
                  + "\" (known: "
                  + String.join(", ", new java.util.TreeSet<>(known))
                  + ")");
        }
        fields.put(canonical.get(key), e.getValue());
      }
    }

    /** A field's place: {@code groups[0].count}, or {@code --device #1 (device "x"): groups}. */
    String field(String key) {
      return where.contains("groups[") ? where + "." + key : where + ": " + key;
    }

    Optional<JsonNode> get(String key) {
      return Optional.ofNullable(fields.get(key)).filter(n -> !n.isNull());
    }

    Optional<String> string(String key) {
      Optional<JsonNode> n = get(key);
      if (n.isPresent() && !n.get().isTextual()) {
        throw new IllegalArgumentException(field(key) + " must be a string");
      }
      return n.map(JsonNode::asText);
    }

    boolean bool(String key) {
      Optional<JsonNode> n = get(key);
      if (n.isPresent() && !n.get().isBoolean()) {
        throw new IllegalArgumentException(field(key) + " must be true or false");
      }
      return n.map(JsonNode::asBoolean).orElse(false);
    }

    Optional<Integer> natural(String key) {
      Optional<JsonNode> n = get(key);
      if (n.isPresent()
          && !(n.get().canConvertToInt() && n.get().isIntegralNumber() && n.get().asInt() >= 0)) {
        throw new IllegalArgumentException(
            field(key) + " must be a whole number of 0 or more, got " + n.get());
      }
      return n.map(JsonNode::asInt);
    }

    List<JsonNode> list(String key) {
      Optional<JsonNode> n = get(key);
      if (n.isEmpty()) {
        return List.of();
      }
      if (!n.get().isArray()) {
        throw new IllegalArgumentException(field(key) + " must be a list");
      }
      List<JsonNode> out = new ArrayList<>();
      n.get().forEach(out::add);
      return out;
    }
  }
}
