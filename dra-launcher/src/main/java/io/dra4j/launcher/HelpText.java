package io.dra4j.launcher;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code --help} of the launcher and of {@code run}: paragraphs wrapped at a width, and tables
 * of a name and its description in two columns.
 *
 * <p>Ours rather than a command-line library's: building a library's command model took about a
 * fifth of a cold start before the driver could register (reflection and its own start-up code,
 * interpreted), and a driver parses one command line once.
 */
final class HelpText {
  /** One row of a table: a name and the paragraphs of its description. */
  record Row(String name, List<String> description) {
    Row(String name, String... description) {
      this(name, List.of(description));
    }
  }

  /** The help flag's row: first in each list of flags. */
  static final Row HELP = new Row("-h, --help", "print this help");

  private static final int GAP = 2;

  /** Continuation lines of a wrapped description stand this much further in. */
  private static final int HANGING = 2;

  private final int width;
  private final StringBuilder text = new StringBuilder();

  HelpText(int width) {
    this.width = width;
  }

  /** A paragraph, wrapped at the width; an empty one is a blank line. */
  HelpText line(String paragraph) {
    for (String line : wrap(paragraph, width, width)) {
      text.append(line).append('\n');
    }
    if (paragraph.isEmpty()) {
      text.append('\n');
    }
    return this;
  }

  /**
   * Rows indented by {@code indent}; descriptions start at {@link #column}. A name that reaches
   * into that column puts its description on the next line.
   */
  HelpText rows(List<Row> rows, int indent, int column) {
    for (Row row : rows) {
      String name = " ".repeat(indent) + row.name();
      boolean own = name.length() + GAP > column;
      StringBuilder line = new StringBuilder(name);
      if (own) {
        text.append(line).append('\n');
        line.setLength(0);
      }
      for (String paragraph : row.description()) {
        List<String> wrapped = wrap(paragraph, width - column, width - column - HANGING);
        for (int i = 0; i < wrapped.size(); i++) {
          int at = column + (i == 0 ? 0 : HANGING);
          line.append(" ".repeat(at - line.length())).append(wrapped.get(i));
          text.append(line).append('\n');
          line.setLength(0);
        }
      }
      if (line.length() > 0) {
        text.append(line).append('\n');
      }
    }
    return this;
  }

  /**
   * Where the descriptions of {@code rows} begin: after the longest name and a gap, but no further
   * than {@code maxName} columns of name.
   */
  static int column(List<Row> rows, int indent, int maxName) {
    int longest = 0;
    for (Row row : rows) {
      if (row.name().length() <= maxName) {
        longest = Math.max(longest, row.name().length());
      }
    }
    return indent + longest + GAP;
  }

  /** Whether {@code arg} asks for the help. */
  static boolean isHelp(String arg) {
    return arg.equals("-h") || arg.equals("--help");
  }

  @Override
  public String toString() {
    return text.toString().stripTrailing();
  }

  /**
   * Words filled into lines of at most {@code first} characters, then {@code rest}; a longer word
   * stands alone.
   */
  private static List<String> wrap(String paragraph, int first, int rest) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : paragraph.split(" ")) {
      if (word.isEmpty()) {
        continue;
      }
      int width = lines.isEmpty() ? first : rest;
      if (line.length() > 0 && line.length() + 1 + word.length() > width) {
        lines.add(line.toString());
        line.setLength(0);
      }
      if (line.length() > 0) {
        line.append(' ');
      }
      line.append(word);
    }
    if (line.length() > 0) {
      lines.add(line.toString());
    }
    return lines;
  }
}
