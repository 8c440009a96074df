package io.dra4j.kube;

import java.util.List;

/**
 * The result of a list call.
 *
 * @param items the objects
 * @param resourceVersion the collection's resourceVersion, where a following watch starts
 */
public record KubeList<T>(List<T> items, String resourceVersion) {
  public KubeList {
    items = List.copyOf(items);
  }
}
