package io.dra4j.apicheck;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;

/**
 * What changed between a recorded API and the current one, each change judged compatible or not for
 * a vendor who compiled against the recorded one: callers of every signature, implementers of every
 * interface and subclasses of every class that is neither final nor sealed.
 *
 * <p>Incompatible: a type or member removed; a signature changed (types, generics, exceptions, a
 * supertype gone, a sealed hierarchy's permitted types); a type made final, abstract, sealed or
 * less visible, or turned into another kind; a member made static or no longer static, final,
 * abstract or less visible; an abstract method added to an interface or abstract class a vendor may
 * implement (an annotation element without a default counts as one). Everything else that differs
 * is a compatible change: new types and members, a modifier relaxed (final or abstract dropped, an
 * abstract method given a default).
 *
 * <p>Known limit: only declared members are compared, so moving a method up into a supertype reads
 * as a removal.
 */
final class ApiDiff {

  /** One difference. */
  record Change(boolean compatible, String key, String what) {
    @Override
    public String toString() {
      return (compatible ? "  + " : "  ! ") + key + ": " + what;
    }
  }

  private ApiDiff() {}

  static List<Change> compare(SortedMap<String, String> recorded, SortedMap<String, String> now) {
    List<Change> changes = new ArrayList<>();
    Set<String> removedTypes = new HashSet<>();
    for (Map.Entry<String, String> e : recorded.entrySet()) {
      String key = e.getKey();
      String old = e.getValue();
      String current = now.get(key);
      boolean member = key.contains("#");
      if (current == null) {
        if (member && removedTypes.contains(owner(key))) {
          continue;
        }
        if (!member) {
          removedTypes.add(key);
        }
        changes.add(new Change(false, key, "removed (was: " + old + ")"));
      } else if (!current.equals(old)) {
        String problem = member ? memberChange(old, current) : typeChange(old, current);
        changes.add(
            new Change(
                problem == null,
                key,
                (problem == null ? "" : problem + ": ") + old + " -> " + current));
      }
    }
    for (Map.Entry<String, String> e : now.entrySet()) {
      String key = e.getKey();
      if (recorded.containsKey(key)) {
        continue;
      }
      String problem = null;
      boolean member = key.contains("#");
      if (member && recorded.containsKey(owner(key)) && words(e.getValue()).contains("abstract")) {
        String type = now.get(owner(key));
        if (type != null && implementable(type)) {
          problem = "abstract method added to a type a vendor may implement or extend";
        }
      }
      changes.add(
          new Change(
              problem == null, key, (problem == null ? "added: " : problem + ": ") + e.getValue()));
    }
    return changes;
  }

  private static String owner(String key) {
    return key.substring(0, key.indexOf('#'));
  }

  /**
   * An interface or annotation that is not sealed, or an abstract class that is neither sealed nor
   * final (its constructors' visibility is not in the type's line; a protected or public one is
   * assumed, the safe side).
   */
  private static boolean implementable(String type) {
    List<String> w = words(type);
    if (w.contains("sealed") || w.contains("final")) {
      return false;
    }
    return w.contains("interface") || w.contains("@interface") || w.contains("abstract");
  }

  private static final Set<String> KINDS =
      Set.of("class", "interface", "@interface", "enum", "record");

  /** Null when the type's declaration changed compatibly, else what breaks. */
  private static String typeChange(String old, String current) {
    List<String> a = words(old);
    List<String> b = words(current);
    String kindA = a.stream().filter(KINDS::contains).findFirst().orElse("");
    String kindB = b.stream().filter(KINDS::contains).findFirst().orElse("");
    if (!kindA.equals(kindB)) {
      return "now " + kindB + " instead of " + kindA;
    }
    for (String gained : List.of("final", "abstract", "sealed", "static")) {
      if (!a.contains(gained) && b.contains(gained)) {
        return "made " + gained;
      }
    }
    if (a.contains("static") && !b.contains("static")) {
      return "no longer static";
    }
    if (a.contains("public") && !b.contains("public")) {
      return "less visible";
    }
    if (!typeParameters(old).equals(typeParameters(current))) {
      return "type parameters changed";
    }
    Set<String> supertypesNow = new HashSet<>(supertypes(current));
    for (String s : supertypes(old)) {
      if (!supertypesNow.contains(s)) {
        return "no longer extends or implements " + s;
      }
    }
    if (!after(old, " permits ").equals(after(current, " permits "))) {
      return "permitted subtypes changed";
    }
    return null;
  }

  /** Null when the member's declaration changed compatibly, else what breaks. */
  private static String memberChange(String old, String current) {
    List<String> a = words(old);
    List<String> b = words(current);
    if (!rest(old).equals(rest(current))) {
      return "signature changed";
    }
    for (String gained : List.of("static", "final", "abstract")) {
      if (!a.contains(gained) && b.contains(gained)) {
        return "made " + gained;
      }
    }
    if (a.contains("static") && !b.contains("static")) {
      return "no longer static";
    }
    if (a.contains("public") && !b.contains("public")) {
      return "less visible";
    }
    if (a.contains("default") && !b.contains("default")) {
      return "default removed";
    }
    return null;
  }

  private static final Set<String> MODIFIERS =
      Set.of("public", "protected", "static", "final", "abstract", "default", "sealed");

  /** The leading modifiers and the kind word of a declaration. */
  private static List<String> words(String declaration) {
    List<String> out = new ArrayList<>();
    for (String w : declaration.split(" ")) {
      if (MODIFIERS.contains(w) || KINDS.contains(w)) {
        out.add(w);
      } else {
        break;
      }
    }
    return out;
  }

  /** The declaration after its leading modifiers. */
  private static String rest(String declaration) {
    String[] w = declaration.split(" ");
    int i = 0;
    while (i < w.length && MODIFIERS.contains(w[i])) {
      i++;
    }
    return String.join(" ", Arrays.asList(w).subList(i, w.length));
  }

  private static String typeParameters(String declaration) {
    String r = rest(declaration);
    int space = r.indexOf(' ');
    String tail = space < 0 ? "" : r.substring(space + 1);
    if (!tail.startsWith("<")) {
      return "";
    }
    int depth = 0;
    for (int i = 0; i < tail.length(); i++) {
      char ch = tail.charAt(i);
      if (ch == '<') {
        depth++;
      } else if (ch == '>' && --depth == 0) {
        return tail.substring(0, i + 1);
      }
    }
    return tail;
  }

  /** The supertypes named after {@code extends} and {@code implements}. */
  private static List<String> supertypes(String declaration) {
    String d = declaration;
    int permits = d.indexOf(" permits ");
    if (permits >= 0) {
      d = d.substring(0, permits);
    }
    List<String> out = new ArrayList<>();
    for (String word : List.of(" extends ", " implements ")) {
      String list = between(d, word);
      if (!list.isEmpty()) {
        out.addAll(splitTopLevel(list));
      }
    }
    return out;
  }

  /** What follows {@code word} (outside type parameters) up to the next clause. */
  private static String between(String d, String word) {
    int depth = 0;
    for (int i = 0; i + word.length() <= d.length(); i++) {
      char ch = d.charAt(i);
      if (ch == '<') {
        depth++;
      } else if (ch == '>') {
        depth--;
      } else if (depth == 0 && d.startsWith(word, i)) {
        String tail = d.substring(i + word.length());
        int next = tail.indexOf(" implements ");
        return next >= 0 && !word.equals(" implements ") ? tail.substring(0, next) : tail;
      }
    }
    return "";
  }

  private static List<String> splitTopLevel(String list) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < list.length(); i++) {
      char ch = list.charAt(i);
      if (ch == '<') {
        depth++;
      } else if (ch == '>') {
        depth--;
      } else if (ch == ',' && depth == 0) {
        out.add(list.substring(start, i).trim());
        start = i + 1;
      }
    }
    out.add(list.substring(start).trim());
    return out;
  }

  private static String after(String d, String word) {
    int i = d.indexOf(word);
    return i < 0 ? "" : d.substring(i + word.length());
  }
}
