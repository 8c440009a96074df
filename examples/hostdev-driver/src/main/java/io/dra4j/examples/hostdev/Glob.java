package io.dra4j.examples.hostdev;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Go's {@code io/fs.Glob} for absolute host paths, which generic-device-plugin expands its paths
 * with: a pattern is matched one path element at a time with {@code path.Match}'s syntax ({@code *}
 * any run of characters but {@code /}, leading dots included; {@code ?} one such character; {@code
 * [...]} a class with ranges and {@code ^} for negation; {@code \} quotes the next character). A
 * path without these characters matches itself when it exists. Matches come back sorted.
 *
 * <p>The file system is read through a view ({@code /dev/...} under the driver's dev root, for
 * instance) while the matches stay host paths, which is what the container runtime reads.
 */
final class Glob {
  private Glob() {}

  /** Whether {@code path} has a glob character, i.e. is a pattern rather than one path. */
  static boolean isPattern(String path) {
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c == '*' || c == '?' || c == '[' || c == '\\') {
        return true;
      }
    }
    return false;
  }

  /**
   * Checks the pattern's syntax.
   *
   * @throws IllegalArgumentException for an unclosed class or a trailing backslash
   */
  static void check(String pattern) {
    for (String element : pattern.split("/", -1)) {
      regex(element);
    }
  }

  /**
   * The existing host paths matching {@code pattern}, sorted.
   *
   * @param view where the driver sees a host path
   */
  static List<String> expand(String pattern, Function<String, Path> view) throws IOException {
    if (!isPattern(pattern)) {
      return Files.exists(view.apply(pattern)) ? List.of(pattern) : List.of();
    }
    List<String> current = List.of("/");
    String[] elements = pattern.substring(1).split("/", -1);
    for (int i = 0; i < elements.length; i++) {
      String element = elements[i];
      boolean last = i == elements.length - 1;
      List<String> next = new ArrayList<>();
      for (String dir : current) {
        String prefix = dir.equals("/") ? "/" : dir + "/";
        if (!isPattern(element)) {
          String p = prefix + element;
          if (last ? Files.exists(view.apply(p)) : Files.isDirectory(view.apply(p))) {
            next.add(p);
          }
          continue;
        }
        Pattern re = regex(element);
        TreeSet<String> names = new TreeSet<>();
        Path d = view.apply(dir);
        if (!Files.isDirectory(d)) {
          continue;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(d)) {
          for (Path entry : s) {
            String name = entry.getFileName().toString();
            if (re.matcher(name).matches() && (last || Files.isDirectory(entry))) {
              names.add(name);
            }
          }
        }
        for (String name : names) {
          next.add(prefix + name);
        }
      }
      current = next;
    }
    return current.stream().sorted().toList();
  }

  /** The regular expression of one path element of Go's {@code path.Match} syntax. */
  private static Pattern regex(String element) {
    StringBuilder re = new StringBuilder();
    int i = 0;
    while (i < element.length()) {
      char c = element.charAt(i);
      switch (c) {
        case '*' -> re.append("[^/]*");
        case '?' -> re.append("[^/]");
        case '\\' -> {
          if (++i >= element.length()) {
            throw new IllegalArgumentException(
                "glob \"" + element + "\" ends with a backslash that quotes nothing");
          }
          re.append(Pattern.quote(String.valueOf(element.charAt(i))));
        }
        case '[' -> {
          int end = classEnd(element, i);
          StringBuilder cls = new StringBuilder("[");
          int j = i + 1;
          if (j < end && element.charAt(j) == '^') {
            cls.append('^');
            j++;
          }
          for (; j < end; j++) {
            char k = element.charAt(j);
            if (k == '\\') {
              k = element.charAt(++j);
            }
            if (k == '-' && cls.length() > 1 && j + 1 < end) {
              cls.append('-');
            } else {
              cls.append("\\x{").append(Integer.toHexString(k)).append('}');
            }
          }
          re.append(cls).append(']');
          i = end;
        }
        default -> re.append(Pattern.quote(String.valueOf(c)));
      }
      i++;
    }
    return Pattern.compile(re.toString());
  }

  /** The index of the {@code ]} closing the class opened at {@code start}. */
  private static int classEnd(String element, int start) {
    int j = start + 1;
    if (j < element.length() && element.charAt(j) == '^') {
      j++;
    }
    boolean first = true;
    for (; j < element.length(); j++) {
      char c = element.charAt(j);
      if (c == '\\') {
        j++;
      } else if (c == ']' && !first) {
        return j;
      }
      first = false;
    }
    throw new IllegalArgumentException("glob \"" + element + "\" has an unclosed [");
  }
}
