package io.dra4j.apicheck;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The canonical text form of an API: one line per exported type and per public or protected member,
 * {@code key: declaration}. The key names the type ({@code a.b.C}) or the member ({@code
 * a.b.C#name(erased, parameter, types)}, {@code a.b.C#FIELD}, {@code a.b.C#<init>(...)}); the
 * declaration is what a caller or implementer depends on: modifiers, generic types, supertypes,
 * exceptions. Only declared members are listed; nested types are types of their own.
 */
final class ApiDump {
  private ApiDump() {}

  /** The lines of the given classes that are visible outside their module, by key. */
  static SortedMap<String, String> of(Collection<Class<?>> classes) {
    SortedMap<String, String> api = new TreeMap<>();
    for (Class<?> c : classes) {
      if (!visible(c)) {
        continue;
      }
      String type = c.getName();
      api.put(type, declaration(c));
      for (Field f : c.getDeclaredFields()) {
        if (exposed(f.getModifiers()) && !f.isSynthetic()) {
          api.put(type + "#" + f.getName(), field(f));
        }
      }
      for (Constructor<?> k : c.getDeclaredConstructors()) {
        if (exposed(k.getModifiers()) && !k.isSynthetic()) {
          api.put(type + "#<init>" + erased(k), executable(c, k, "", c.getSimpleName()));
        }
      }
      for (Method m : c.getDeclaredMethods()) {
        if (exposed(m.getModifiers()) && !m.isSynthetic() && !m.isBridge()) {
          api.put(
              type + "#" + m.getName() + erased(m),
              executable(c, m, m.getGenericReturnType().getTypeName() + " ", m.getName()));
        }
      }
    }
    return api;
  }

  /** Public or protected, and so is every type around it; no local or anonymous class. */
  static boolean visible(Class<?> c) {
    if (c.isAnonymousClass() || c.isLocalClass() || c.isSynthetic()) {
      return false;
    }
    if (!exposed(c.getModifiers())) {
      return false;
    }
    return c.getDeclaringClass() == null || visible(c.getDeclaringClass());
  }

  private static boolean exposed(int modifiers) {
    return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
  }

  private static String declaration(Class<?> c) {
    List<String> words = new ArrayList<>();
    int m = c.getModifiers();
    words.add(Modifier.isPublic(m) ? "public" : "protected");
    boolean plainClass = !c.isInterface() && !c.isEnum() && !c.isRecord();
    if (plainClass && Modifier.isAbstract(m)) {
      words.add("abstract");
    }
    if (c.getDeclaringClass() != null && Modifier.isStatic(m) && plainClass) {
      words.add("static");
    }
    if (plainClass && Modifier.isFinal(m)) {
      words.add("final");
    }
    if (c.isSealed()) {
      words.add("sealed");
    }
    words.add(
        c.isAnnotation()
            ? "@interface"
            : c.isInterface()
                ? "interface"
                : c.isEnum() ? "enum" : c.isRecord() ? "record" : "class");
    StringBuilder s = new StringBuilder(String.join(" ", words));
    String typeParameters = typeParameters(c.getTypeParameters());
    if (!typeParameters.isEmpty()) {
      s.append(' ').append(typeParameters);
    }
    Type sup = c.getGenericSuperclass();
    if (sup != null && plainClass && sup != Object.class) {
      s.append(" extends ").append(sup.getTypeName());
    }
    List<String> interfaces =
        Arrays.stream(c.getGenericInterfaces())
            .map(Type::getTypeName)
            .filter(n -> !c.isAnnotation() || !n.equals("java.lang.annotation.Annotation"))
            .sorted()
            .collect(Collectors.toList());
    if (!interfaces.isEmpty()) {
      s.append(c.isInterface() ? " extends " : " implements ")
          .append(String.join(", ", interfaces));
    }
    if (c.isSealed()) {
      s.append(" permits ")
          .append(
              Arrays.stream(c.getPermittedSubclasses())
                  .map(Class::getName)
                  .sorted()
                  .collect(Collectors.joining(", ")));
    }
    return s.toString();
  }

  private static String field(Field f) {
    int m = f.getModifiers();
    return access(m)
        + (Modifier.isStatic(m) ? " static" : "")
        + (Modifier.isFinal(m) ? " final" : "")
        + " "
        + f.getGenericType().getTypeName()
        + " "
        + f.getName();
  }

  private static String executable(Class<?> owner, Executable e, String returns, String name) {
    int m = e.getModifiers();
    List<String> words = new ArrayList<>();
    words.add(access(m));
    if (Modifier.isStatic(m)) {
      words.add("static");
    }
    if (e instanceof Method method) {
      if (method.isDefault()) {
        words.add("default");
      } else if (owner.isAnnotation() && method.getDefaultValue() != null) {
        // An element with a default value: annotations that leave it out still compile.
        words.add("default");
      } else if (Modifier.isAbstract(m)) {
        words.add("abstract");
      }
      // A final method of a final class is no stronger a promise than the class's own.
      if (Modifier.isFinal(m) && !Modifier.isFinal(owner.getModifiers())) {
        words.add("final");
      }
    }
    String typeParameters = typeParameters(e.getTypeParameters());
    if (!typeParameters.isEmpty()) {
      words.add(typeParameters);
    }
    Type[] generic = e.getGenericParameterTypes();
    Class<?>[] raw = e.getParameterTypes();
    List<String> parameters = new ArrayList<>();
    // An inner class's constructor has its outer instance as a parameter only in the erased form.
    boolean useGeneric = generic.length == raw.length;
    for (int i = 0; i < raw.length; i++) {
      String p = useGeneric ? generic[i].getTypeName() : raw[i].getTypeName();
      if (e.isVarArgs() && i == raw.length - 1 && p.endsWith("[]")) {
        p = p.substring(0, p.length() - 2) + "...";
      }
      parameters.add(p);
    }
    StringBuilder s = new StringBuilder(String.join(" ", words));
    s.append(' ').append(returns).append(name).append('(');
    s.append(String.join(", ", parameters)).append(')');
    Type[] exceptions = e.getGenericExceptionTypes();
    if (exceptions.length > 0) {
      s.append(" throws ")
          .append(
              Arrays.stream(exceptions)
                  .map(Type::getTypeName)
                  .sorted()
                  .collect(Collectors.joining(", ")));
    }
    return s.toString();
  }

  private static String access(int modifiers) {
    return Modifier.isPublic(modifiers) ? "public" : "protected";
  }

  private static String erased(Executable e) {
    return Arrays.stream(e.getParameterTypes())
        .map(Class::getTypeName)
        .collect(Collectors.joining(",", "(", ")"));
  }

  private static String typeParameters(TypeVariable<?>[] variables) {
    if (variables.length == 0) {
      return "";
    }
    List<String> out = new ArrayList<>();
    for (TypeVariable<?> v : variables) {
      List<String> bounds =
          Arrays.stream(v.getBounds())
              .map(Type::getTypeName)
              .filter(b -> !b.equals("java.lang.Object"))
              .collect(Collectors.toList());
      out.add(v.getName() + (bounds.isEmpty() ? "" : " extends " + String.join(" & ", bounds)));
    }
    return "<" + String.join(", ", out) + ">";
  }
}
