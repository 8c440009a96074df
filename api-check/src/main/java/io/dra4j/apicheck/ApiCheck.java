package io.dra4j.apicheck;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The API compatibility check: for every published jar module (the artifacts {@code dra4j-bom}
 * lists), the public and protected signatures of the packages its module descriptor exports to
 * everyone (qualified exports are dra4j's own business) are compared with the baseline committed at
 * {@code <module>/api/<module>.api}. An incompatible change fails; compatible additions pass and
 * are listed. With {@code true} as the second argument the current API becomes the baseline.
 *
 * <p>Run by {@code ./mvnw verify} (module {@code api-check}); update the baseline after a
 * deliberate change with {@code ./mvnw -pl api-check -am verify -DskipTests
 * -Ddra4j.api.update=true} and commit it with the change.
 */
public final class ApiCheck {
  private ApiCheck() {}

  private static final String UPDATE =
      "./mvnw -pl api-check -am verify -DskipTests -Ddra4j.api.update=true";

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[0]).toAbsolutePath().normalize();
    boolean update = args.length > 1 && Boolean.parseBoolean(args[1]);
    System.exit(run(root, update) ? 0 : 1);
  }

  static boolean run(Path root, boolean update) throws IOException {
    Map<String, Path> locations = dra4jModulesOnClassPath();
    int incompatible = 0;
    int missing = 0;
    int compatible = 0;
    int signatures = 0;
    List<String> out = new ArrayList<>();
    for (String artifact : publishedArtifacts(root)) {
      String module = moduleName(root.resolve(artifact));
      Path location = locations.get(module);
      if (location == null) {
        out.add(artifact + ": module " + module + " is not on the class path of api-check");
        out.add("  (add the artifact to api-check/pom.xml)");
        missing++;
        continue;
      }
      SortedMap<String, String> now = ApiDump.of(exportedClasses(location));
      signatures += now.size();
      Path file = root.resolve(artifact).resolve("api").resolve(artifact + ".api");
      Optional<SortedMap<String, String>> recorded = read(file);
      List<ApiDiff.Change> changes = ApiDiff.compare(recorded.orElse(new TreeMap<>()), now);
      long bad = changes.stream().filter(c -> !c.compatible()).count();
      if (update) {
        if (recorded.isEmpty() || !changes.isEmpty()) {
          write(file, artifact, module, now);
          if (recorded.isEmpty()) {
            out.add(artifact + ": baseline created, " + now.size() + " signatures");
          } else {
            out.add(artifact + ": baseline updated");
            changes.forEach(c -> out.add(c.toString()));
          }
        }
        continue;
      }
      if (recorded.isEmpty()) {
        out.add(artifact + ": no baseline at " + root.relativize(file));
        missing++;
        continue;
      }
      if (!changes.isEmpty()) {
        out.add(
            artifact
                + ": "
                + (changes.size() - bad)
                + " compatible change(s), "
                + bad
                + " incompatible");
        changes.forEach(c -> out.add(c.toString()));
      }
      incompatible += (int) bad;
      compatible += (int) (changes.size() - bad);
    }
    out.forEach(System.out::println);
    if (update) {
      System.out.println("API baseline recorded: " + signatures + " signatures");
      return true;
    }
    if (incompatible + missing > 0) {
      System.out.println(
          "API check FAILED: "
              + incompatible
              + " incompatible change(s) (!) against the recorded API"
              + (missing > 0 ? ", " + missing + " module(s) not checked" : "")
              + ". If deliberate, record the new baseline in the same commit: "
              + UPDATE);
      return false;
    }
    System.out.println(
        "API check passed: "
            + signatures
            + " signatures, "
            + compatible
            + " compatible change(s)"
            + (compatible > 0 ? " (+) not yet in the baseline; record them with " + UPDATE : ""));
    return true;
  }

  private static final Pattern ARTIFACT = Pattern.compile("<artifactId>([^<]+)</artifactId>");

  /** The jar artifacts of dra4j-bom's dependencyManagement, in its order. */
  static List<String> publishedArtifacts(Path root) throws IOException {
    String bom = Files.readString(root.resolve("dra4j-bom/pom.xml"));
    int start = bom.indexOf("<dependencyManagement>");
    int end = bom.indexOf("</dependencyManagement>");
    Matcher m = ARTIFACT.matcher(bom.substring(start, end));
    List<String> out = new ArrayList<>();
    while (m.find()) {
      if (Files.exists(root.resolve(m.group(1)).resolve("src/main/java/module-info.java"))) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  private static final Pattern MODULE =
      Pattern.compile("(?m)^\\s*(?:open\\s+)?module\\s+([\\w.]+)");

  private static String moduleName(Path moduleDir) throws IOException {
    Matcher m =
        MODULE.matcher(Files.readString(moduleDir.resolve("src/main/java/module-info.java")));
    if (!m.find()) {
      throw new IllegalStateException("no module declaration in " + moduleDir);
    }
    return m.group(1);
  }

  /** Module name to its jar or class folder, for every io.dra4j module on the class path. */
  private static Map<String, Path> dra4jModulesOnClassPath() throws IOException {
    Map<String, Path> out = new LinkedHashMap<>();
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      Path p = Path.of(entry);
      Optional<ModuleDescriptor> d = descriptor(p);
      if (d.isPresent() && d.get().name().startsWith("io.dra4j.")) {
        out.putIfAbsent(d.get().name(), p);
      }
    }
    return out;
  }

  private static Optional<ModuleDescriptor> descriptor(Path location) throws IOException {
    if (Files.isDirectory(location)) {
      Path info = location.resolve("module-info.class");
      if (!Files.exists(info)) {
        return Optional.empty();
      }
      try (InputStream in = Files.newInputStream(info)) {
        return Optional.of(ModuleDescriptor.read(in));
      }
    }
    if (!Files.isRegularFile(location) || !location.toString().endsWith(".jar")) {
      return Optional.empty();
    }
    try (JarFile jar = new JarFile(location.toFile())) {
      var entry = jar.getEntry("module-info.class");
      if (entry == null) {
        return Optional.empty();
      }
      try (InputStream in = jar.getInputStream(entry)) {
        return Optional.of(ModuleDescriptor.read(in));
      }
    }
  }

  /** Every class of the packages the module exports to everyone, loaded without initializing. */
  static List<Class<?>> exportedClasses(Path location) throws IOException {
    ModuleDescriptor d = descriptor(location).orElseThrow();
    List<String> packages =
        d.exports().stream()
            .filter(e -> !e.isQualified())
            .map(ModuleDescriptor.Exports::source)
            .sorted()
            .collect(Collectors.toList());
    List<String> names = new ArrayList<>();
    for (String pkg : packages) {
      String dir = pkg.replace('.', '/') + "/";
      for (String file : classFiles(location, dir)) {
        String simple = file.substring(dir.length(), file.length() - ".class".length());
        if (!simple.contains("/") && !simple.equals("package-info")) {
          names.add(pkg + "." + simple);
        }
      }
    }
    List<Class<?>> out = new ArrayList<>();
    ClassLoader loader = ApiCheck.class.getClassLoader();
    for (String n : new TreeSet<>(names)) {
      try {
        out.add(Class.forName(n, false, loader));
      } catch (ClassNotFoundException | LinkageError e) {
        throw new IllegalStateException("cannot load " + n + " from " + location, e);
      }
    }
    return out;
  }

  private static List<String> classFiles(Path location, String dir) throws IOException {
    if (Files.isDirectory(location)) {
      Path p = location.resolve(dir);
      if (!Files.isDirectory(p)) {
        return List.of();
      }
      try (Stream<Path> s = Files.list(p)) {
        return s.map(f -> dir + f.getFileName())
            .filter(f -> f.endsWith(".class"))
            .collect(Collectors.toList());
      }
    }
    try (JarFile jar = new JarFile(location.toFile())) {
      return jar.stream()
          .map(java.util.zip.ZipEntry::getName)
          .filter(n -> n.startsWith(dir) && n.endsWith(".class"))
          .collect(Collectors.toList());
    }
  }

  private static final String HEADER = "# ";

  static Optional<SortedMap<String, String>> read(Path file) throws IOException {
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    SortedMap<String, String> api = new TreeMap<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (line.isBlank() || line.startsWith(HEADER)) {
        continue;
      }
      int colon = line.indexOf(": ");
      if (colon < 0) {
        throw new IllegalStateException(file + ": not a key: declaration line: " + line);
      }
      api.put(line.substring(0, colon), line.substring(colon + 2));
    }
    return Optional.of(api);
  }

  private static void write(
      Path file, String artifact, String module, SortedMap<String, String> api) throws IOException {
    Files.createDirectories(file.getParent());
    StringBuilder s = new StringBuilder();
    s.append(HEADER)
        .append("The exported API of ")
        .append(artifact)
        .append(" (module ")
        .append(module)
        .append("), checked by api-check in ./mvnw verify.\n");
    s.append(HEADER).append("A deliberate change records it here: ").append(UPDATE).append('\n');
    api.forEach((k, v) -> s.append(k).append(": ").append(v).append('\n'));
    try {
      Files.writeString(file, s, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
