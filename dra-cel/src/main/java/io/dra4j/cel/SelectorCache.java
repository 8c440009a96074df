package io.dra4j.cel;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * A bounded least-recently-used cache of compiled selectors (and of compile failures, which are
 * just as deterministic). The map lock is held only for lookups; each expression is compiled once
 * under its own slot's lock, so threads compiling different expressions do not wait for each other
 * and threads asking for the same one wait for the single compilation.
 */
final class SelectorCache {

  private final Map<String, Slot> slots;

  SelectorCache(int maxEntries) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("cache size must be at least 1, got " + maxEntries);
    }
    this.slots =
        new LinkedHashMap<>(16, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Slot> eldest) {
            return size() > maxEntries;
          }
        };
  }

  CompiledSelector get(String expression, Function<String, CompiledSelector> compiler) {
    Slot slot;
    synchronized (slots) {
      slot = slots.computeIfAbsent(expression, e -> new Slot());
    }
    return slot.get(expression, compiler);
  }

  int size() {
    synchronized (slots) {
      return slots.size();
    }
  }

  private static final class Slot {
    private CompiledSelector value;
    private SelectorCompileException failure;

    synchronized CompiledSelector get(
        String expression, Function<String, CompiledSelector> compiler) {
      if (value == null && failure == null) {
        try {
          value = compiler.apply(expression);
        } catch (SelectorCompileException e) {
          failure = e;
        }
      }
      if (failure != null) {
        // A fresh exception per caller: a shared instance would carry the first caller's stack.
        throw new SelectorCompileException(
            failure.expression(), failure.reason(), failure.line(), failure.column());
      }
      return value;
    }
  }
}
