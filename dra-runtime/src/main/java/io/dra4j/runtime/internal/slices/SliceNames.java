package io.dra4j.runtime.internal.slices;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The Kubernetes 1.36+ naming convention for the slices of a pool, which ties a slice to its
 * position in the desired list: a created slice gets {@code generateName} {@code
 * <index>-<driver>-<owner>-}, where {@code <index>} is the lower-case hex index zero-padded to
 * {@code max(5, hex digits of (count - 1))} characters. The API server appends a random suffix.
 *
 * <p>The index leads the name for two reasons: the scheduler walks slices in lexicographic name
 * order and takes the first fit, so the desired order becomes the allocation preference; and the
 * API server truncates a long {@code generateName} base before adding its suffix, which may cut the
 * end of the base but never its start.
 *
 * <p>Existing slices are matched back by that prefix: a name whose first {@code '-'} does not sit
 * exactly at the expected width, whose prefix is not lower-case hex, whose index is out of range,
 * or whose index was already taken by an earlier slice is obsolete (the publisher deletes it). The
 * width depends on the desired count, so growing past 0x100000 slices renames every slice, as in
 * the Go controller; a pool never gets near that.
 */
public final class SliceNames {
  private SliceNames() {}

  private static final int MIN_INDEX_WIDTH = 5;

  /** Characters of the index prefix for a pool of {@code sliceCount} slices. */
  public static int indexWidth(int sliceCount) {
    if (sliceCount < 1) {
      throw new IllegalArgumentException("slice count must be at least 1, it is " + sliceCount);
    }
    return Math.max(MIN_INDEX_WIDTH, Integer.toHexString(sliceCount - 1).length());
  }

  /** The index prefix, e.g. {@code 0000a} for index 10 of 20 slices. */
  public static String indexPrefix(int index, int sliceCount) {
    checkIndex(index, sliceCount);
    String hex = Integer.toHexString(index);
    return "0".repeat(indexWidth(sliceCount) - hex.length()) + hex;
  }

  /**
   * Characters of a {@code generateName} the API server keeps: it cuts longer bases to 63 minus the
   * 5 random characters it appends. Cutting here gives the same names on every server (the fake API
   * server does not cut) and never touches the index prefix.
   */
  public static final int MAX_GENERATE_NAME_LENGTH = 58;

  /**
   * The {@code metadata.generateName} for the slice at {@code index}: {@code
   * <index>-<driver>-<owner>-}, lower-cased (object names are lower-case DNS subdomains even when
   * the driver name is not), with every {@code /} (pool names may have them) replaced by {@code -},
   * and cut to {@link #MAX_GENERATE_NAME_LENGTH} characters as the API server would.
   *
   * @param owner the owner's name, normally the node; for slices without an owner the pool name
   */
  public static String generateName(int index, int sliceCount, String driver, String owner) {
    String base =
        (indexPrefix(index, sliceCount) + "-" + driver + "-" + owner + "-")
            .toLowerCase(Locale.ROOT)
            .replace('/', '-');
    return base.length() <= MAX_GENERATE_NAME_LENGTH
        ? base
        : base.substring(0, MAX_GENERATE_NAME_LENGTH);
  }

  /**
   * The index an existing slice name encodes for a pool that should have {@code sliceCount} slices;
   * empty when the name does not follow the convention or the index is out of range.
   */
  public static OptionalInt parseIndex(String name, int sliceCount) {
    int width = indexWidth(sliceCount);
    if (name.indexOf('-') != width) {
      return OptionalInt.empty();
    }
    int index = 0;
    for (int i = 0; i < width; i++) {
      int digit = Character.digit(name.charAt(i), 16);
      if (digit < 0 || Character.isUpperCase(name.charAt(i))) {
        return OptionalInt.empty();
      }
      if (index > (Integer.MAX_VALUE >> 4)) {
        return OptionalInt.empty();
      }
      index = index * 16 + digit;
    }
    return index < sliceCount ? OptionalInt.of(index) : OptionalInt.empty();
  }

  /**
   * Matches existing slices to desired indices by name. Slices that encode the same index are
   * resolved in the order given: the first keeps the index, the others are obsolete; the publisher
   * chooses that order (e.g. the slice whose content already matches first).
   *
   * @param existing the pool's existing slices (already filtered by generation, if wanted)
   * @param name how to get a slice's {@code metadata.name}
   * @param sliceCount the number of desired slices
   */
  static <T> SliceMatch<T> match(
      List<T> existing, Function<? super T, String> name, int sliceCount) {
    Map<Integer, T> matched = new TreeMap<>();
    List<T> obsolete = new ArrayList<>();
    for (T slice : existing) {
      OptionalInt index = parseIndex(name.apply(slice), sliceCount);
      if (index.isPresent() && !matched.containsKey(index.getAsInt())) {
        matched.put(index.getAsInt(), slice);
      } else {
        obsolete.add(slice);
      }
    }
    return new SliceMatch<>(matched, obsolete);
  }

  private static void checkIndex(int index, int sliceCount) {
    if (index < 0 || index >= sliceCount) {
      throw new IllegalArgumentException(
          "slice index " + index + " is outside 0.." + (sliceCount - 1));
    }
  }
}
