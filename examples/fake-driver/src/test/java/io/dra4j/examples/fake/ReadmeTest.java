package io.dra4j.examples.fake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The README's Java, as a reader copies it: every {@code ```java} block is a whole file; they are
 * compiled together against dra4j's artifacts (this module's test class path, which is what a
 * project depending on dra-launcher and dra-testkit sees, and more) and every test among them is
 * run.
 */
class ReadmeTest {
  private static final Pattern BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
  private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
  private static final Pattern TYPE =
      Pattern.compile(
          "^(?:public )?(?:final )?(?:class|interface|record|enum) (\\w+)", Pattern.MULTILINE);

  @TempDir Path dir;

  @Test
  void everyJavaBlockOfTheReadmeCompilesAndItsTestsPass() throws Exception {
    List<Path> sources = extract(Files.readString(readme()), dir.resolve("src"));
    assertThat(sources)
        .extracting(p -> p.getFileName().toString())
        .contains("AcmeProvider.java", "AcmeDriver.java", "AcmeProviderTest.java");

    Path classes = Files.createDirectories(dir.resolve("classes"));
    compile(sources, classes);

    List<String> tests = new ArrayList<>();
    for (Path source : sources) {
      String name = source.getFileName().toString().replace(".java", "");
      if (name.endsWith("Test")) {
        tests.add(packageOf(Files.readString(source)) + "." + name);
      }
    }
    TestExecutionSummary summary = run(classes, tests);
    StringWriter failures = new StringWriter();
    summary.printFailuresTo(new java.io.PrintWriter(failures), 40);
    assertThat(summary.getTestsFoundCount()).as("tests in the README").isPositive();
    assertThat(summary.getTotalFailureCount()).as(failures.toString()).isZero();
    assertThat(summary.getTestsSucceededCount()).isEqualTo(summary.getTestsFoundCount());
  }

  /** The repository's README.md, found from the module directory Maven runs the tests in. */
  static Path readme() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("README.md")) && Files.isDirectory(d.resolve("dra-api"))) {
        return d.resolve("README.md");
      }
    }
    throw new IllegalStateException("no README.md above " + Path.of("").toAbsolutePath());
  }

  /** Writes each block to {@code src/<package path>/<Type>.java}; a block must be a whole file. */
  static List<Path> extract(String markdown, Path src) throws IOException {
    List<Path> files = new ArrayList<>();
    Matcher blocks = BLOCK.matcher(markdown);
    while (blocks.find()) {
      String code = blocks.group(1);
      Matcher type = TYPE.matcher(code);
      assertThat(type.find()).as("a README Java block declares no type:\n" + code).isTrue();
      Path file = src.resolve(packageOf(code).replace('.', '/')).resolve(type.group(1) + ".java");
      assertThat(file).as("two README Java blocks declare " + file.getFileName()).doesNotExist();
      Files.createDirectories(file.getParent());
      Files.writeString(file, code);
      files.add(file);
    }
    return files;
  }

  private static String packageOf(String code) {
    Matcher m = PACKAGE.matcher(code);
    assertThat(m.find()).as("a README Java block has no package line:\n" + code).isTrue();
    return m.group(1);
  }

  private static void compile(List<Path> sources, Path classes) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    StringWriter diagnostics = new StringWriter();
    try (StandardJavaFileManager files = javac.getStandardFileManager(null, null, null)) {
      Iterable<? extends JavaFileObject> units = files.getJavaFileObjectsFromPaths(sources);
      boolean ok =
          javac
              .getTask(
                  diagnostics,
                  files,
                  null,
                  List.of(
                      "--release",
                      "17",
                      "-Xlint:all",
                      "-Werror",
                      "-classpath",
                      System.getProperty("java.class.path"),
                      "-d",
                      classes.toString()),
                  null,
                  units)
              .call();
      assertThat(ok).as("the README's Java does not compile:\n" + diagnostics).isTrue();
    }
  }

  private static TestExecutionSummary run(Path classes, List<String> testClasses) throws Exception {
    try (URLClassLoader loader =
        new URLClassLoader(
            new URL[] {classes.toUri().toURL()}, ReadmeTest.class.getClassLoader())) {
      LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
      for (String name : testClasses) {
        request.selectors(selectClass(loader.loadClass(name)));
      }
      LauncherDiscoveryRequest built = request.build();
      Launcher launcher = LauncherFactory.create();
      SummaryGeneratingListener listener = new SummaryGeneratingListener();
      launcher.execute(built, listener);
      return listener.getSummary();
    }
  }
}
