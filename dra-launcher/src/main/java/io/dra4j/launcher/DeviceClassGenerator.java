package io.dra4j.launcher;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.dra4j.cel.CelSelectors;
import io.dra4j.cel.SelectorCompileException;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceSelector;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.KubeNames;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.launcher.DriverFlags.Flag;
import io.dra4j.runtime.extendedresource.ExtendedResourceNames;
import io.dra4j.validation.PoolValidator;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The DeviceClass of a driver's devices, as YAML for {@code kubectl apply}: the selector {@code
 * device.driver == '<driver>'}, optional further selectors (CEL, or {@code --match} on the driver's
 * own attributes) and an optional {@code extendedResourceName} (KEP-5004), checked by the API
 * server's name rules before anything is printed.
 *
 * <p>{@value #COMMAND} is a command of every launcher built on {@code DriverMain}: {@code java -jar
 * <driver>.jar deviceclass --extended-resource-name example.com/gpu}.
 */
public final class DeviceClassGenerator {
  /** The launcher's command name. */
  public static final String COMMAND = "deviceclass";

  /** {@code metadata.name}; shown default: the driver name. */
  public static final Flag CLASS_NAME =
      Flag.value("class-name", "C", "the driver name", "metadata.name of the DeviceClass");

  /** {@code spec.extendedResourceName}. */
  public static final Flag EXTENDED_RESOURCE_NAME =
      Flag.value(
          "extended-resource-name",
          "NAME",
          "none (pods can use deviceclass.resource.kubernetes.io/<class>)",
          "spec.extendedResourceName, e.g. example.com/gpu: pods asking for NAME: 1 get one"
              + " device");

  private static final Flag MATCH =
      new Flag(
          "match",
          "ATTRIBUTE=VALUE",
          "",
          DriverFlags.Kind.REPEATED,
          "none",
          "only devices whose attribute has this value (repeatable); a name without a domain is"
              + " one of the driver's own (type=gpu), resource.kubernetes.io/numaNode=0 names a"
              + " standard one; VALUE true/false is a bool, an integer an int, 'quoted' or"
              + " anything else a string");

  private static final Flag SELECTOR =
      new Flag(
          "selector",
          "CEL",
          "",
          DriverFlags.Kind.REPEATED,
          "none",
          "a further CEL selector (repeatable; all selectors must match)");

  private static final List<Flag> FLAGS =
      List.of(
          DriverFlags.DRIVER_NAME.showing("the launcher's"),
          CLASS_NAME,
          EXTENDED_RESOURCE_NAME,
          MATCH,
          SELECTOR);

  private static final Pattern INTEGER = Pattern.compile("-?[0-9]+");

  private DeviceClassGenerator() {}

  /**
   * A DeviceClass manifest for this driver's devices.
   *
   * @param selectors CEL expressions added after {@code device.driver == '<driver>'}; a device must
   *     match every one
   * @throws IllegalArgumentException naming the field and the rule: driver name (DNS subdomain of
   *     at most 63 characters), class name (DNS subdomain of at most 253), extended resource name
   *     (contains '/', not in the kubernetes.io domain, no {@code requests.} prefix, {@code
   *     requests.<name>} a qualified name, name part at most 63), selectors (must compile)
   */
  public static String yaml(
      String driverName,
      String className,
      Optional<String> extendedResourceName,
      List<String> selectors) {
    Objects.requireNonNull(driverName, "driverName");
    Objects.requireNonNull(className, "className");
    Objects.requireNonNull(extendedResourceName, "extendedResourceName");
    List<String> errors = new ArrayList<>();
    for (String p : ExtendedResourceNames.driverName(driverName)) {
      errors.add("driver name \"" + driverName + "\" " + p);
    }
    for (String p : KubeNames.dnsSubdomain(className)) {
      errors.add("metadata.name (class name) \"" + className + "\" " + p);
    }
    extendedResourceName.ifPresent(
        name -> {
          for (String p : ExtendedResourceNames.explicit(name)) {
            errors.add("spec.extendedResourceName \"" + name + "\" " + p);
          }
        });
    List<DeviceSelector> selectorList = new ArrayList<>();
    selectorList.add(DeviceSelector.cel("device.driver == '" + driverName + "'"));
    for (String expression : selectors) {
      String field = "spec.selectors[" + selectorList.size() + "].cel.expression";
      if (expression.isBlank()) {
        errors.add(field + " must not be empty");
        continue;
      }
      try {
        CelSelectors.shared().compile(expression);
        selectorList.add(DeviceSelector.cel(expression));
      } catch (SelectorCompileException e) {
        errors.add(field + " does not compile: " + e.getMessage());
      }
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(
          "DeviceClass " + className + ": " + String.join("; ", errors));
    }
    DeviceClass.Spec spec = DeviceClass.Spec.of(selectorList);
    if (extendedResourceName.isPresent()) {
      spec = spec.withExtendedResourceName(extendedResourceName.get());
    }
    try {
      return KubeJson.yaml()
          .writeValueAsString(DeviceClass.of(ObjectMeta.named("", className), spec));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The CEL selector for {@code --match ATTRIBUTE=VALUE}: {@code
   * device.attributes['<domain>'].<name> == <value>}, the domain being the driver's when the
   * attribute has none.
   *
   * @throws IllegalArgumentException naming the flag and the rule
   */
  static String matchSelector(String driverName, String match) {
    int eq = match.indexOf('=');
    if (eq <= 0) {
      throw new IllegalArgumentException(
          "--match \"" + match + "\" must be ATTRIBUTE=VALUE, e.g. type=gpu");
    }
    String attribute = match.substring(0, eq);
    String value = match.substring(eq + 1);
    List<String> problems = PoolValidator.attributeNameProblems(attribute);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "--match \"" + match + "\": attribute " + String.join("; ", problems));
    }
    int slash = attribute.indexOf('/');
    String domain = slash < 0 ? driverName : attribute.substring(0, slash);
    String name = attribute.substring(slash + 1);
    return "device.attributes['" + domain + "']." + name + " == " + literal(value);
  }

  /** A CEL literal: bool, int, or a string (single-quoted, with quotes and backslashes escaped). */
  private static String literal(String value) {
    if (value.equals("true") || value.equals("false") || INTEGER.matcher(value).matches()) {
      return value;
    }
    String text =
        value.length() >= 2 && value.startsWith("'") && value.endsWith("'")
            ? value.substring(1, value.length() - 1)
            : value;
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  /**
   * Runs the command: prints the YAML to {@code out}, problems to {@code err}.
   *
   * @param defaults flag values used when neither the flag nor its environment variable is given,
   *     by flag name without dashes ({@code driver-name}, {@code class-name}, {@code
   *     extended-resource-name}), as a vendor's launcher passes them to {@code DriverMain.run}
   * @return 0, or 2 for a usage error or a name the API server would refuse
   */
  public static int run(
      List<String> args,
      Map<String, String> defaults,
      Map<String, String> env,
      PrintStream out,
      PrintStream err) {
    CommandSpec spec = CommandSpec.create().name(COMMAND);
    spec.addOption(
        OptionSpec.builder("-h", "--help").usageHelp(true).description("print this help").build());
    spec.addMixin("flags", DriverFlags.mixin(defaults, env, FLAGS));
    spec.usageMessage()
        .customSynopsis(COMMAND + " [OPTIONS]")
        .description("Prints a resource.k8s.io/v1 DeviceClass selecting this driver's devices.")
        .sortOptions(false);
    CommandLine cli = DriverFlags.commandLine(spec, false, out, err);
    try {
      if (cli.parseArgs(args.toArray(String[]::new)).isUsageHelpRequested()) {
        cli.usage(out);
        return 0;
      }
    } catch (CommandLine.ParameterException e) {
      err.println("error: " + e.getMessage());
      cli.usage(err);
      return 2;
    }
    Optional<String> driver = DriverFlags.value(spec, DriverFlags.DRIVER_NAME);
    Optional<String> className = DriverFlags.value(spec, CLASS_NAME);
    Optional<String> resourceName = DriverFlags.value(spec, EXTENDED_RESOURCE_NAME);
    List<String> selectors = DriverFlags.values(spec, SELECTOR);
    List<String> matches = DriverFlags.values(spec, MATCH);
    if (driver.isEmpty()) {
      err.println("error: --driver-name (or DRIVER_NAME) is required, e.g. gpu.example.com");
      cli.usage(err);
      return 2;
    }
    String name = className.orElse(driver.get());
    try {
      List<String> all = new ArrayList<>();
      for (String m : matches) {
        all.add(matchSelector(driver.get(), m));
      }
      all.addAll(selectors);
      String text = yaml(driver.get(), name, resourceName, all);
      List<String> implicit = ExtendedResourceNames.implicit(name);
      if (!implicit.isEmpty()) {
        String why =
            "pods cannot ask for the implicit name "
                + ExtendedResourceNames.implicitName(name)
                + ": "
                + String.join("; ", implicit);
        if (resourceName.isEmpty()) {
          err.println(
              "error: DeviceClass "
                  + name
                  + ": "
                  + why
                  + ", and no --extended-resource-name is given, so no extended resource"
                  + " reaches these devices; shorten --class-name to at most "
                  + KubeNames.QUALIFIED_NAME_PART_MAX
                  + " characters or give --extended-resource-name");
          return 2;
        }
        err.println("warning: DeviceClass " + name + ": " + why);
      }
      out.print(text);
      return 0;
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      return 2;
    }
  }
}
