package io.dra4j.runtime.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The public surface of one compiled module, read from its classes directory: the types a user of
 * its jar can name, and every type their public signatures mention. A module may use dra4j's
 * internal packages in its code, but a public signature that mentions one hands the user a type
 * they must not depend on: that is a leak.
 */
public final class PublicSurface {

  /**
   * dra4j's packages that are not API: those its module descriptors export only to dra4j's own
   * modules (any {@code .internal} package, dra-cel, dra-validation, the classes generated from the
   * kubelet's .proto files).
   */
  public static final Predicate<Class<?>> INTERNAL = c -> isInternal(c.getPackageName());

  /**
   * The internal packages outside an {@code .internal} one: dra-cel, the protos, dra-validation.
   */
  private static final String INTERNAL_ROOTS = "cel|proto|validation";

  private static final Pattern INTERNAL_PACKAGE =
      Pattern.compile(
          "io\\.dra4j\\.((" + INTERNAL_ROOTS + ")(\\..+)?|[a-z0-9.]+\\.internal(\\..+)?)");

  /** How an internal class is named inside a class file. */
  private static final Pattern INTERNAL_IN_CLASS_FILE =
      Pattern.compile("io/dra4j/((" + INTERNAL_ROOTS + ")/|[a-z0-9/]+/internal/)");

  private final List<Class<?>> visible;

  private PublicSurface(List<Class<?>> visible) {
    this.visible = visible;
  }

  /** The types of {@code classes} (a module's {@code target/classes}) a user can name. */
  public static PublicSurface of(Path classes) {
    List<Class<?>> visible = new ArrayList<>();
    ClassLoader loader = PublicSurface.class.getClassLoader();
    for (Path file : classFiles(classes)) {
      String name = classes.relativize(file).toString().replace('/', '.');
      name = name.substring(0, name.length() - ".class".length());
      if (name.endsWith("package-info") || name.endsWith("module-info")) {
        continue;
      }
      Class<?> c;
      try {
        c = Class.forName(name, false, loader);
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(file + " is not on the test's class path", e);
      }
      if (isVisible(c)) {
        visible.add(c);
      }
    }
    return new PublicSurface(List.copyOf(visible));
  }

  /** The visible types that are API: not matched by {@code internal}. */
  public List<Class<?>> api(Predicate<Class<?>> internal) {
    return visible.stream().filter(internal.negate()).toList();
  }

  /** The visible types that {@code internal} matches. */
  public List<Class<?>> notApi(Predicate<Class<?>> internal) {
    return visible.stream().filter(internal).toList();
  }

  /**
   * Every place where an API type's public signature (supertypes, fields, constructors, methods,
   * type arguments included) mentions a type {@code internal} matches, one line each, such as
   * {@code io.dra4j.runtime.DraDriver.start() returns or takes io.dra4j.runtime.internal.X}.
   */
  public Set<String> leaks(Predicate<Class<?>> internal) {
    Set<String> found = new TreeSet<>();
    for (Class<?> c : api(internal)) {
      String at = c.getName();
      List<Type> supers = new ArrayList<>(Arrays.asList(c.getGenericInterfaces()));
      if (c.getGenericSuperclass() != null) {
        supers.add(c.getGenericSuperclass());
      }
      for (Class<?> hit : mentioned(supers, internal)) {
        found.add(at + " extends or implements " + hit.getName());
      }
      for (Field f : c.getDeclaredFields()) {
        if (exposed(f.getModifiers()) && !f.isSynthetic()) {
          report(found, at + "." + f.getName(), mentioned(List.of(f.getGenericType()), internal));
        }
      }
      List<Executable> members = new ArrayList<>(Arrays.asList(c.getDeclaredConstructors()));
      members.addAll(Arrays.asList(c.getDeclaredMethods()));
      for (Executable e : members) {
        if (!exposed(e.getModifiers()) || e.isSynthetic()) {
          continue;
        }
        List<Type> types = new ArrayList<>(Arrays.asList(e.getGenericParameterTypes()));
        types.addAll(Arrays.asList(e.getGenericExceptionTypes()));
        if (e instanceof Method m) {
          types.add(m.getGenericReturnType());
        }
        String name = e instanceof Method ? e.getName() : "<init>";
        report(found, at + "." + name + "()", mentioned(types, internal));
      }
    }
    return found;
  }

  /**
   * The class files under {@code classes} that name an internal type of dra4j ({@link #INTERNAL}):
   * code a vendor could copy (an example, a generated project) must compile against the exported
   * API alone.
   */
  public static List<String> usesOfInternals(Path classes) {
    List<String> found = new ArrayList<>();
    for (Path file : classFiles(classes)) {
      try {
        // Latin-1 maps each byte to one char, so the ASCII name is found wherever the bytes hold
        // it.
        String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
        if (INTERNAL_IN_CLASS_FILE.matcher(bytes).find()) {
          found.add(classes.relativize(file).toString());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return found;
  }

  /** Whether {@code pkg} is one of dra4j's packages that are not API. */
  public static boolean isInternal(String pkg) {
    return INTERNAL_PACKAGE.matcher(pkg).matches();
  }

  /**
   * The packages the module descriptor in {@code classes} exports to everyone, and those it exports
   * only to named modules, as {@code exported} and {@code qualified}.
   */
  public static Exports exports(Path classes) {
    try (InputStream in = Files.newInputStream(classes.resolve("module-info.class"))) {
      ModuleDescriptor d = ModuleDescriptor.read(in);
      Set<String> exported = new TreeSet<>();
      Set<String> qualified = new TreeSet<>();
      for (ModuleDescriptor.Exports e : d.exports()) {
        (e.isQualified() ? qualified : exported).add(e.source());
      }
      return new Exports(d.name(), exported, qualified, new TreeSet<>(d.packages()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What a module descriptor exports; {@code packages} is every package of the module. */
  public record Exports(
      String module, Set<String> exported, Set<String> qualified, Set<String> packages) {}

  /**
   * The API packages of this module by dra4j's naming: those of its visible types that are not
   * {@link #INTERNAL}.
   */
  public Set<String> apiPackages() {
    Set<String> packages = new TreeSet<>();
    for (Class<?> c : api(INTERNAL)) {
      packages.add(c.getPackageName());
    }
    return packages;
  }

  private static void report(Set<String> found, String member, Set<Class<?>> hits) {
    for (Class<?> hit : hits) {
      found.add(member + " returns or takes " + hit.getName());
    }
  }

  private static Set<Class<?>> mentioned(List<Type> types, Predicate<Class<?>> internal) {
    Set<Class<?>> all = new HashSet<>();
    for (Type t : types) {
      collect(t, all, new HashSet<>());
    }
    all.removeIf(internal.negate());
    return all;
  }

  /** Every class a type names, through arrays, type arguments, wildcards and bounds. */
  private static void collect(Type t, Set<Class<?>> into, Set<Type> seen) {
    if (!seen.add(t)) {
      return;
    }
    if (t instanceof Class<?> c) {
      into.add(c.isArray() ? c.componentType() : c);
    } else if (t instanceof ParameterizedType p) {
      collect(p.getRawType(), into, seen);
      for (Type a : p.getActualTypeArguments()) {
        collect(a, into, seen);
      }
    } else if (t instanceof GenericArrayType a) {
      collect(a.getGenericComponentType(), into, seen);
    } else if (t instanceof WildcardType w) {
      Stream.concat(Arrays.stream(w.getUpperBounds()), Arrays.stream(w.getLowerBounds()))
          .forEach(b -> collect(b, into, seen));
    } else if (t instanceof TypeVariable<?> v) {
      for (Type b : v.getBounds()) {
        collect(b, into, seen);
      }
    }
  }

  /** Public, or a member (nested type) that every enclosing type makes reachable. */
  private static boolean isVisible(Class<?> c) {
    if (c.isAnonymousClass() || c.isLocalClass() || c.isSynthetic()) {
      return false;
    }
    for (Class<?> k = c; k != null; k = k.getDeclaringClass()) {
      if (!exposed(k.getModifiers())) {
        return false;
      }
    }
    return true;
  }

  private static boolean exposed(int modifiers) {
    return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
  }

  private static List<Path> classFiles(Path classes) {
    if (!Files.isDirectory(classes)) {
      throw new IllegalStateException(classes + " is not a classes directory; build the module");
    }
    try (Stream<Path> files = Files.walk(classes)) {
      return files.filter(p -> p.toString().endsWith(".class")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
