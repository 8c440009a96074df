package io.dra4j.numa;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The kernel's CPU and node list syntax, as in {@code cpulist} and {@code online}: comma-separated
 * numbers and inclusive ranges, e.g. {@code 0-3,8-11}. The empty string is the empty list (a NUMA
 * node without CPUs).
 */
public final class CpuList {
  /** Far above any kernel's NR_CPUS; keeps a corrupt range from allocating without bound. */
  static final int MAX = 1 << 20;

  private CpuList() {}

  /**
   * Parses a list into ascending, unique numbers.
   *
   * @throws IllegalArgumentException naming the text when it is not in the list syntax
   */
  public static List<Integer> parse(String text) {
    String s = text.strip();
    TreeSet<Integer> out = new TreeSet<>();
    if (s.isEmpty()) {
      return List.of();
    }
    for (String part : s.split(",", -1)) {
      try {
        int dash = part.indexOf('-');
        if (dash < 0) {
          out.add(nonNegative(part));
        } else {
          int from = nonNegative(part.substring(0, dash));
          int to = nonNegative(part.substring(dash + 1));
          if (to < from) {
            throw new IllegalArgumentException("range " + part + " is descending");
          }
          for (int i = from; i <= to; i++) {
            out.add(i);
          }
        }
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "\"" + text + "\" is not a CPU list such as 0-3,8-11: " + e.getMessage(), e);
      }
    }
    return List.copyOf(out);
  }

  /** Writes numbers in the kernel's syntax with ranges, e.g. {@code 0-3,8}. */
  public static String format(List<Integer> values) {
    List<Integer> sorted = new ArrayList<>(new TreeSet<>(values));
    StringBuilder sb = new StringBuilder();
    int i = 0;
    while (i < sorted.size()) {
      int j = i;
      while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
        j++;
      }
      if (sb.length() > 0) {
        sb.append(',');
      }
      sb.append(sorted.get(i));
      if (j > i) {
        sb.append('-').append(sorted.get(j));
      }
      i = j + 1;
    }
    return sb.toString();
  }

  private static int nonNegative(String s) {
    if (s.isEmpty() || s.length() > 6 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException("\"" + s + "\" is not a number from 0 to " + MAX);
    }
    int v = Integer.parseInt(s);
    if (v > MAX) {
      throw new IllegalArgumentException("\"" + s + "\" is not a number from 0 to " + MAX);
    }
    return v;
  }
}
