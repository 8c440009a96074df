package io.dra4j.testkit.allocator;

import io.dra4j.api.device.DeviceToleration;
import io.dra4j.api.device.Quantity;
import io.dra4j.cel.CompiledSelector;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.RequestNames;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One request, or one subrequest of a {@code firstAvailable} request, prepared for the search:
 * class resolved, selectors compiled, count known.
 */
final class Wanted {
  /** Why a device is not selectable for this request; {@link #SELECTABLE} when it is. */
  enum Selectable {
    SELECTABLE,
    CLASS_SELECTORS,
    REQUEST_SELECTORS,
    CEL_ERROR,
    NOT_ON_NODE
  }

  final String request;

  /** The subrequest name; empty for a plain request. */
  final String subRequest;

  final DeviceClass deviceClass;
  final List<CompiledSelector> classSelectors;
  final List<CompiledSelector> requestSelectors;
  final boolean all;
  final long count;
  final boolean adminAccess;
  final List<DeviceToleration> tolerations;
  final Map<String, Quantity> capacityRequests;

  /** For allocationMode All: the devices it needs, fixed before the search starts. */
  List<Candidate> allDevices = List.of();

  /** Selectability per candidate index, computed on first use. */
  Selectable[] selectable;

  /** CEL evaluation errors met so far, reported when the request cannot be satisfied. */
  final Set<String> celErrors = new LinkedHashSet<>();

  Wanted(
      String request,
      String subRequest,
      DeviceClass deviceClass,
      List<CompiledSelector> classSelectors,
      List<CompiledSelector> requestSelectors,
      boolean all,
      long count,
      boolean adminAccess,
      List<DeviceToleration> tolerations,
      Map<String, Quantity> capacityRequests) {
    this.request = request;
    this.subRequest = subRequest;
    this.deviceClass = deviceClass;
    this.classSelectors = classSelectors;
    this.requestSelectors = requestSelectors;
    this.all = all;
    this.count = count;
    this.adminAccess = adminAccess;
    this.tolerations = tolerations;
    this.capacityRequests = capacityRequests;
  }

  /** {@code request} or {@code request/subrequest}, as allocation results name it. */
  String resultName() {
    return RequestNames.of(request, Optional.of(subRequest).filter(s -> !s.isEmpty()));
  }

  String className() {
    return deviceClass.metadata().name();
  }

  /** How many devices the search must place for this request. */
  long numDevices() {
    return all ? allDevices.size() : count;
  }

  /** A request with its alternatives (one for {@code exactly}, several for firstAvailable). */
  static final class Group {
    final String name;
    final boolean firstAvailable;
    final List<Wanted> alternatives = new ArrayList<>();
    int selected = -1;

    Group(String name, boolean firstAvailable) {
      this.name = name;
      this.firstAvailable = firstAvailable;
    }

    long minDevices() {
      return alternatives.stream().mapToLong(Wanted::numDevices).min().orElse(0);
    }
  }
}
