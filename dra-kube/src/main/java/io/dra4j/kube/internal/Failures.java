package io.dra4j.kube.internal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The one wording of failures that a vendor or a platform engineer reads (the kubelet's per-claim
 * error, a claim's status, a log line, the launcher's message): for JSON and YAML decoding the
 * field's path in the document, what the field expects and what was found, or where the syntax
 * breaks; for files the path and the system's reason. No Java class names, no parser token names.
 * Every place that decodes what a person wrote (opaque configs, kubeconfigs, checkpoints, API
 * responses) or touches the node's files words its failures here.
 */
public final class Failures {

  private static final Pattern TOKEN = Pattern.compile("`JsonToken\\.(\\w+)`");
  private static final Pattern FROM_VALUE = Pattern.compile("from (\\w+) value(?: \\('(.*)'\\))?");
  private static final Pattern UNEXPECTED_CHAR = Pattern.compile("Unexpected character \\('(.+?)'");
  private static final Pattern CODE = Pattern.compile(" \\(code \\d+\\)");

  private Failures() {}

  /**
   * What is wrong, e.g. {@code field "sharing": expected a string, found an object}, {@code unknown
   * field "sharingg" (known fields: env, sharing)} or {@code not valid JSON at line 1, column 9:
   * unexpected character '}'}. Exceptions that are not Jackson's give their own message.
   */
  public static String describe(Throwable e) {
    if (e instanceof UnrecognizedPropertyException u) {
      String known =
          u.getKnownPropertyIds() == null || u.getKnownPropertyIds().isEmpty()
              ? ""
              : " (known fields: "
                  + new TreeSet<>(u.getKnownPropertyIds().stream().map(String::valueOf).toList())
                      .stream().collect(Collectors.joining(", "))
                  + ")";
      return "unknown field \"" + path(u) + "\"" + known;
    }
    if (e instanceof InvalidFormatException f) {
      return field(f) + invalidValue(f);
    }
    if (e instanceof MismatchedInputException m) {
      Class<?> target = m.getTargetType();
      Optional<String> found = found(m);
      if (target == null || found.isEmpty()) {
        return field(m) + sentence(m.getOriginalMessage());
      }
      return field(m) + "expected " + expected(target) + ", found " + found.get();
    }
    if (e instanceof ValueInstantiationException v && v.getCause() != null) {
      return field(v) + withoutField(v, v.getCause().getMessage());
    }
    if (e instanceof JsonMappingException m) {
      Throwable cause = m.getCause();
      String rule =
          cause instanceof IllegalArgumentException && cause.getMessage() != null
              ? withoutField(m, cause.getMessage())
              : sentence(m.getOriginalMessage());
      return field(m) + rule;
    }
    if (e instanceof StreamReadException s) {
      return "not valid " + format(s) + at(s.getLocation()) + ": " + syntax(s.getOriginalMessage());
    }
    if (e instanceof JsonProcessingException p) {
      return sentence(p.getOriginalMessage()) + at(p.getLocation());
    }
    if (e instanceof UncheckedIOException u && u.getCause() != null) {
      return describe(u.getCause());
    }
    if (e instanceof FileSystemException f) {
      return file(f);
    }
    if (e instanceof javax.net.ssl.SSLException) {
      return tls(e);
    }
    String m = e.getMessage();
    if (m == null || m.isBlank()) {
      if (e.getCause() != null && e.getCause() != e) {
        return describe(e.getCause());
      }
      return e instanceof java.net.ConnectException
          ? "connection refused"
          : words(e.getClass().getSimpleName());
    }
    return m;
  }

  /**
   * A failed TLS handshake: the JDK's innermost reason, without the names of its certificate-path
   * classes.
   */
  private static String tls(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String reason = String.valueOf(root.getMessage());
    int colon = reason.lastIndexOf(": ");
    if (reason.contains("Exception") && colon >= 0) {
      reason = reason.substring(colon + 2);
    }
    if (reason.contains("certification path")) {
      return "TLS handshake failed: the server's certificate is not signed by a trusted CA ("
          + reason
          + ")";
    }
    return "TLS handshake failed: " + reason;
  }

  /** {@code /path: reason}, the reason in the system's words or, when Java gives none, in ours. */
  private static String file(FileSystemException f) {
    String reason = f.getReason();
    if (reason == null || reason.isBlank()) {
      reason =
          f instanceof NoSuchFileException
              ? "no such file or directory"
              : f instanceof AccessDeniedException
                  ? "permission denied"
                  : f instanceof FileAlreadyExistsException
                      ? "already exists"
                      : f instanceof DirectoryNotEmptyException
                          ? "directory not empty"
                          : f instanceof NotDirectoryException
                              ? "not a directory"
                              : words(f.getClass().getSimpleName());
    }
    String where =
        f.getFile() == null
            ? ""
            : f.getFile() + (f.getOtherFile() == null ? "" : " -> " + f.getOtherFile()) + ": ";
    return where + reason;
  }

  /** {@code FileSystemLoopException} as "file system loop", for types without a message. */
  private static String words(String className) {
    String base = className.replaceAll("(Exception|Error)$", "");
    return base.replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase(java.util.Locale.ROOT);
  }

  /** The path of the failing field, e.g. {@code spec.devices[0].name}; empty at the top. */
  public static String path(JsonMappingException e) {
    StringBuilder sb = new StringBuilder();
    for (JsonMappingException.Reference r : e.getPath()) {
      if (r.getFieldName() != null) {
        if (sb.length() > 0) {
          sb.append('.');
        }
        sb.append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        sb.append('[').append(r.getIndex()).append(']');
      }
    }
    if (sb.length() == 0 && e instanceof UnrecognizedPropertyException u) {
      return u.getPropertyName();
    }
    return sb.toString();
  }

  private static String field(JsonMappingException e) {
    String p = path(e);
    return p.isEmpty() ? "" : "field \"" + p + "\": ";
  }

  /** A provider's rule that repeats the field name the path already gives ("sharing: ..."). */
  private static String withoutField(JsonMappingException e, String rule) {
    if (rule == null) {
      return "invalid value";
    }
    String p = path(e);
    String last = p.substring(p.lastIndexOf('.') + 1);
    for (String prefix : List.of(p + ": ", last + ": ", "\"" + p + "\": ", "field " + p + ": ")) {
      if (!last.isEmpty() && rule.startsWith(prefix)) {
        return firstLine(rule.substring(prefix.length()));
      }
    }
    return firstLine(rule);
  }

  private static String invalidValue(InvalidFormatException f) {
    String value =
        f.getValue() instanceof String s ? "\"" + s + "\"" : String.valueOf(f.getValue());
    Class<?> target = f.getTargetType();
    if (target != null && target.isEnum()) {
      return value + " is not one of " + enumNames(target);
    }
    return value + " is not " + (target == null ? "a valid value" : expected(target));
  }

  /**
   * What was found instead, in JSON words: from the library's message (the parser is closed by then
   * when it read a stream), else from the parser.
   */
  private static Optional<String> found(MismatchedInputException m) {
    String message = String.valueOf(m.getOriginalMessage());
    Matcher token = TOKEN.matcher(message);
    if (token.find()) {
      try {
        return Optional.of(word(JsonToken.valueOf(token.group(1)), ""));
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    }
    Matcher from = FROM_VALUE.matcher(message);
    if (from.find()) {
      String text = from.group(2) == null ? "" : from.group(2);
      return switch (from.group(1)) {
        case "Object" -> Optional.of("an object");
        case "Array" -> Optional.of("an array");
        case "String" -> Optional.of("the string \"" + text + "\"");
        case "Integer", "Floating-point", "Number" -> Optional.of("the number " + text);
        case "Boolean" -> Optional.of(text.isEmpty() ? "true or false" : text);
        default -> Optional.empty();
      };
    }
    if (m.getProcessor() instanceof JsonParser p && p.currentToken() != null) {
      try {
        return Optional.of(word(p.currentToken(), p.getText()));
      } catch (java.io.IOException e) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  private static String word(JsonToken t, String text) {
    return switch (t) {
      case START_OBJECT, END_OBJECT, FIELD_NAME -> "an object";
      case START_ARRAY, END_ARRAY -> "an array";
      case VALUE_STRING -> text.isEmpty() ? "a string" : "the string \"" + text + "\"";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT ->
          text.isEmpty() ? "a number" : "the number " + text;
      case VALUE_TRUE -> "true";
      case VALUE_FALSE -> "false";
      case VALUE_NULL -> "null";
      default -> "a value";
    };
  }

  /** What a Java type accepts, as a JSON value. */
  static String expected(Class<?> type) {
    if (type == String.class || type == Character.class || type == char.class) {
      return "a string";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (type == Integer.class
        || type == int.class
        || type == Long.class
        || type == long.class
        || type == Short.class
        || type == short.class
        || type == BigInteger.class) {
      return "an integer";
    }
    if (Number.class.isAssignableFrom(type)
        || type == double.class
        || type == float.class
        || type == BigDecimal.class) {
      return "a number";
    }
    if (type.isArray() || Collection.class.isAssignableFrom(type)) {
      return "an array";
    }
    if (Map.class.isAssignableFrom(type)) {
      return "an object";
    }
    if (type.isEnum()) {
      return "one of " + enumNames(type);
    }
    Optional<Class<?>> value = jsonValueType(type);
    if (value.isPresent()) {
      return expected(value.get());
    }
    if (fromString(type)) {
      return "a string";
    }
    return "an object";
  }

  private static String enumNames(Class<?> type) {
    Optional<Method> value =
        Arrays.stream(type.getMethods())
            .filter(m -> m.isAnnotationPresent(JsonValue.class) && m.getParameterCount() == 0)
            .findFirst();
    return Arrays.stream(type.getEnumConstants())
        .map(
            c -> {
              try {
                return value.isPresent()
                    ? String.valueOf(value.get().invoke(c))
                    : ((Enum<?>) c).name();
              } catch (ReflectiveOperationException e) {
                return ((Enum<?>) c).name();
              }
            })
        .collect(Collectors.joining(", "));
  }

  private static Optional<Class<?>> jsonValueType(Class<?> type) {
    return Arrays.stream(type.getMethods())
        .filter(m -> m.isAnnotationPresent(JsonValue.class) && m.getParameterCount() == 0)
        .findFirst()
        .map(Method::getReturnType);
  }

  private static boolean fromString(Class<?> type) {
    return Arrays.stream(type.getDeclaredMethods())
        .anyMatch(
            m ->
                Modifier.isStatic(m.getModifiers())
                    && m.isAnnotationPresent(JsonCreator.class)
                    && m.getParameterCount() == 1
                    && m.getParameterTypes()[0] == String.class);
  }

  private static String format(StreamReadException s) {
    Object source = s.getProcessor();
    return source != null && source.getClass().getName().contains(".yaml.") ? "YAML" : "JSON";
  }

  private static String at(JsonLocation l) {
    if (l == null || l.getLineNr() < 1) {
      return "";
    }
    return " at line " + l.getLineNr() + ", column " + l.getColumnNr();
  }

  /** A parser's complaint without its character codes and token lists. */
  private static String syntax(String message) {
    String m = firstLine(message);
    Matcher c = UNEXPECTED_CHAR.matcher(m);
    if (c.find()) {
      return "unexpected character '" + c.group(1) + "'";
    }
    if (m.startsWith("Unexpected end-of-input")) {
      return "the document ends too early";
    }
    return sentence(CODE.matcher(m).replaceAll(""));
  }

  /** A message of the JSON library, unless it names Java types or parser tokens. */
  private static String sentence(String message) {
    String m = firstLine(message);
    if (m.contains("`") || m.contains("JsonToken")) {
      return "the value does not fit this field";
    }
    return m.isEmpty() ? m : Character.toLowerCase(m.charAt(0)) + m.substring(1);
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).strip();
  }
}
