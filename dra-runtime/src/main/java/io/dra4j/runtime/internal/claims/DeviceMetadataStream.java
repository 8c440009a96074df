package io.dra4j.runtime.internal.claims;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.kube.KubeJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;

/**
 * The format of a device metadata file (k8s.io/dynamic-resource-allocation v0.37.2, {@code
 * api/metadata/doc.go:72-80}): a stream of JSON objects, the same {@code DeviceMetadata} once per
 * version the driver writes, in the order it names them, each followed by a newline ({@code
 * kubeletplugin/metadata.go:323-336}). A reader takes the first object of a version it knows and
 * skips newer ones, so a driver can add a version without breaking older workloads.
 *
 * <p>{@code v1alpha1} and {@code v1beta1} have the same fields ({@code
 * api/metadata/v1alpha1/types.go} and {@code v1beta1/types.go} differ only in the package), so
 * converting between them is changing {@code apiVersion}. A version with other fields needs a real
 * conversion here.
 */
public final class DeviceMetadataStream {

  public static final String GROUP = "metadata.resource.k8s.io";

  /** The latest version, which every driver must write ({@code draplugin.go:974-976}). */
  public static final String V1BETA1 = GROUP + "/v1beta1";

  /** The version Kubernetes 1.36 readers know. */
  public static final String V1ALPHA1 = GROUP + "/v1alpha1";

  /**
   * What a driver writes unless it names versions: the latest alone. Upstream has no default
   * ({@code draplugin.go:958-961}); dra4j's keeps {@code --device-metadata} a plain switch.
   */
  public static final List<String> DEFAULT_VERSIONS = List.of(V1BETA1);

  static final String KIND = "DeviceMetadata";

  private static final List<String> KNOWN = List.of(V1BETA1, V1ALPHA1);

  /**
   * Go's {@code json.MarshalIndent(obj, "", " ")}, apimachinery's pretty serializer ({@code
   * metadata.go:51-57}): two spaces, {@code "key": value}, {@code []} and {@code {}} when empty.
   */
  private static final ObjectWriter PRETTY =
      KubeJson.mapper()
          .writer(
              new DefaultPrettyPrinter()
                  .withSeparators(
                      Separators.createDefaultInstance()
                          .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                          .withObjectEmptySeparator("")
                          .withArrayEmptySeparator(""))
                  .withObjectIndenter(new DefaultIndenter("  ", "\n"))
                  .withArrayIndenter(new DefaultIndenter("  ", "\n")));

  private final List<String> versions;

  /**
   * @param versions the versions to write, in this order
   * @throws IllegalArgumentException when they break {@link #checkVersions}'s rule
   */
  DeviceMetadataStream(List<String> versions) {
    this.versions = checkVersions(versions);
  }

  /**
   * Upstream's rule for the versions a driver writes ({@code kubeletplugin/draplugin.go:953-976},
   * option {@code EnableDeviceMetadata} {@code :661-697}): at least one, only versions that exist,
   * and the latest among them. There is deliberately no default "latest": a driver names what it
   * writes, so an update of dra4j never changes which readers can read its files.
   *
   * @return the versions, duplicates removed
   * @throws IllegalArgumentException naming the rule broken
   */
  public static List<String> checkVersions(List<String> versions) {
    if (versions.isEmpty()) {
      throw new IllegalArgumentException(
          "device metadata versions must be named explicitly, none given (the latest is "
              + V1BETA1
              + ")");
    }
    for (String v : versions) {
      if (!KNOWN.contains(v)) {
        throw new IllegalArgumentException(
            "device metadata version \"" + v + "\" is not supported; supported: " + KNOWN);
      }
    }
    if (!versions.contains(V1BETA1)) {
      throw new IllegalArgumentException(
          "device metadata versions "
              + versions
              + " lack the latest version, "
              + V1BETA1
              + ", which must be written");
    }
    return List.copyOf(new LinkedHashSet<>(versions));
  }

  /**
   * The stream: {@code body} (a {@code DeviceMetadata} without {@code kind} and {@code apiVersion})
   * once per version, {@code kind} and {@code apiVersion} first as Go writes {@code TypeMeta}.
   */
  byte[] encode(ObjectNode body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (String version : versions) {
      ObjectNode o = KubeJson.mapper().createObjectNode();
      o.put("kind", KIND);
      o.put("apiVersion", version);
      body.fields()
          .forEachRemaining(
              f -> {
                if (!f.getKey().equals("kind") && !f.getKey().equals("apiVersion")) {
                  o.set(f.getKey(), f.getValue());
                }
              });
      try {
        out.writeBytes(PRETTY.writeValueAsBytes(o));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
      out.write('\n');
    }
    return out.toByteArray();
  }

  /**
   * The first object of a version this reader knows, as upstream's {@code DecodeMetadataFromStream}
   * picks it ({@code devicemetadata/decode.go:69-154}): objects of an unknown version are skipped,
   * and nothing after the chosen object is read. Values are not validated (upstream validates only
   * on request).
   *
   * @throws IOException naming the problem as upstream does: broken JSON, an object without {@code
   *     apiVersion}, a known version that is no {@code DeviceMetadata}, no object at all, or only
   *     unknown versions
   */
  static ObjectNode decode(byte[] content) throws IOException {
    List<String> unknown = new ArrayList<>();
    try (MappingIterator<JsonNode> objects =
        KubeJson.mapper().readerFor(JsonNode.class).readValues(content)) {
      while (objects.hasNextValue()) {
        JsonNode o = objects.nextValue();
        String version = o.path("apiVersion").asText("");
        if (!o.isObject() || version.isEmpty()) {
          throw new IOException("decode metadata object: no apiVersion in " + shorten(o));
        }
        if (!KNOWN.contains(version)) {
          unknown.add(version);
          continue;
        }
        if (!Objects.equals(o.path("kind").asText(), KIND)) {
          throw new IOException(
              "decode " + version + ": kind \"" + o.path("kind").asText() + "\", want " + KIND);
        }
        return (ObjectNode) o;
      }
    } catch (JsonProcessingException e) {
      throw new IOException("read metadata object from stream: " + e.getOriginalMessage(), e);
    }
    if (unknown.isEmpty()) {
      throw new IOException("no metadata objects found in stream");
    }
    throw new IOException(
        "no compatible metadata version found in stream (unknown versions: "
            + String.join(", ", unknown)
            + ")");
  }

  private static String shorten(JsonNode o) {
    String s = o.toString();
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }

  @Override
  public String toString() {
    return String.join(", ", versions);
  }
}
