package io.dra4j.kube;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * Jackson value filter behind {@link OmitEmpty}: {@code equals} answers "suppress this value". A
 * record counts as empty when it equals the instance its canonical constructor builds from all
 * nulls and zeros (the normalizing constructors turn those into empty values).
 */
final class EmptyFilter {
  private static final Object NOT_EMPTIABLE = new Object();

  private static final ClassValue<Object> EMPTY_RECORDS =
      new ClassValue<>() {
        @Override
        protected Object computeValue(Class<?> type) {
          if (!type.isRecord()) {
            return NOT_EMPTIABLE;
          }
          try {
            RecordComponent[] components = type.getRecordComponents();
            Class<?>[] types = new Class<?>[components.length];
            Object[] args = new Object[components.length];
            for (int i = 0; i < components.length; i++) {
              types[i] = components[i].getType();
              args[i] = zero(types[i]);
            }
            Constructor<?> c = type.getDeclaredConstructor(types);
            c.setAccessible(true);
            return c.newInstance(args);
          } catch (ReflectiveOperationException | RuntimeException e) {
            return NOT_EMPTIABLE; // a required field: never empty
          }
        }
      };

  private static Object zero(Class<?> t) {
    if (!t.isPrimitive()) {
      return null;
    }
    if (t == boolean.class) {
      return false;
    }
    if (t == long.class) {
      return 0L;
    }
    if (t == int.class) {
      return 0;
    }
    if (t == double.class) {
      return 0.0;
    }
    return null;
  }

  static boolean isEmpty(Object value) {
    if (value == null) {
      return true;
    }
    if (value instanceof Optional<?> o) {
      return o.isEmpty();
    }
    if (value instanceof CharSequence s) {
      return s.length() == 0;
    }
    if (value instanceof Collection<?> c) {
      return c.isEmpty();
    }
    if (value instanceof Map<?, ?> m) {
      return m.isEmpty();
    }
    if (value instanceof JsonNode n) {
      return n.isNull() || n.isMissingNode();
    }
    if (value instanceof Record) {
      Object empty = EMPTY_RECORDS.get(value.getClass());
      return empty != NOT_EMPTIABLE && empty.equals(value);
    }
    return false;
  }

  @Override
  public boolean equals(Object value) {
    return isEmpty(value);
  }

  @Override
  public int hashCode() {
    return 0;
  }
}
