package io.dra4j.doctor;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything the doctor found, section by section; {@code --output json} writes this record as it
 * is (schema version {@value #SCHEMA_VERSION}, documented in the jar's {@code
 * io/dra4j/runtime/doctor/doctor-report.schema.json}, a path that stays where it was when the
 * doctor became internal). Absent optional values are left out of the JSON, lists are always
 * written.
 *
 * @param schemaVersion {@value #SCHEMA_VERSION}; raised only when a field changes meaning or goes
 *     away (new fields may appear in any version)
 * @param server the API server's URL
 * @param node the node checked ({@code --node}); absent when the whole cluster was
 * @param verdict {@code ok}, {@code warnings}, {@code errors} or {@code unreadable}
 * @param exitCode 0, 1, 2 or 3, as the command exits
 * @param versions section 1
 * @param demand section 2: one entry per extended resource name pods request
 * @param supply section 3: one entry per node and name
 * @param mapping section 4
 * @param claims section 5
 * @param taints section 6
 * @param settings section 7
 * @param unreadable what could not be read (exit 3)
 * @param findings every verdict, errors first
 */
record DoctorReport(
    int schemaVersion,
    String server,
    Optional<String> node,
    String verdict,
    int exitCode,
    Versions versions,
    List<Demand> demand,
    List<Supply> supply,
    Mapping mapping,
    Claims claims,
    Taints taints,
    Settings settings,
    List<Unreadable> unreadable,
    List<Finding> findings) {

  static final int SCHEMA_VERSION = 1;

  /** Exit status when something could not be read: the verdict would be a guess. */
  static final int EXIT_UNREADABLE = 3;

  /**
   * @param apiServer {@code gitVersion} from {@code /version}
   * @param nodes one entry per node
   */
  record Versions(Optional<String> apiServer, List<NodeVersion> nodes) {}

  /**
   * @param node the node
   * @param kubelet {@code status.nodeInfo.kubeletVersion}
   * @param draServedResources the extended resource names DRA serves on this node
   */
  record NodeVersion(String node, Optional<String> kubelet, List<String> draServedResources) {}

  /**
   * @param resource the extended resource name
   * @param pods pods requesting it (requests or limits, init or regular containers), not finished
   * @param pendingPods those not yet bound to a node
   * @param namespaces pod count per namespace
   */
  record Demand(String resource, int pods, int pendingPods, Map<String, Integer> namespaces) {}

  /**
   * @param node the node
   * @param resource the extended resource name
   * @param servedBy {@code dra}, {@code device-plugin}, {@code both} (an error) or {@code none}, as
   *     the scheduler decides: the device plugin while allocatable is above 0
   * @param phase the name's phase on this node: {@code device-plugin} (plugin serving), {@code
   *     conflict} (plugin serving while untainted DRA devices for the name are published here),
   *     {@code plugin-stopped} (capacity above 0, allocatable 0: the plugin stopped less than 5
   *     minutes ago, or runs with all its devices unhealthy; the scheduler already uses DRA) or
   *     {@code dra} (capacity and allocatable 0 or absent: migrated); the guard's phase otherwise
   * @param capacity {@code status.capacity} for the name, when present
   * @param allocatable {@code status.allocatable} for the name, when present
   * @param deviceClass the DeviceClass the scheduler maps the name to
   * @param drivers the drivers whose devices on this node the class selects
   * @param draDevices devices on this node the class selects
   * @param untaintedDraDevices those without a NoSchedule or NoExecute taint (the scheduler's claim
   *     tolerates none)
   * @param podsOnNode pods bound to this node that request the name
   */
  record Supply(
      String node,
      String resource,
      String servedBy,
      String phase,
      Optional<String> capacity,
      Optional<String> allocatable,
      Optional<String> deviceClass,
      List<String> drivers,
      int draDevices,
      int untaintedDraDevices,
      int podsOnNode) {}

  /**
   * @param names every requestable name and the class the scheduler uses for it
   * @param unusableImplicitNames classes whose implicit name no pod can request
   * @param invalidNames explicit names the scheduler ignores
   */
  record Mapping(
      List<MappedName> names,
      List<UnusableName> unusableImplicitNames,
      List<InvalidName> invalidNames) {}

  /**
   * @param resource the name
   * @param form {@code explicit} ({@code spec.extendedResourceName}) or {@code implicit} ({@code
   *     deviceclass.resource.kubernetes.io/<class>})
   * @param deviceClass the class the scheduler uses
   * @param ignoredClasses other classes with the same explicit name, in the scheduler's order
   */
  record MappedName(
      String resource, String form, String deviceClass, List<String> ignoredClasses) {}

  /**
   * @param deviceClass the class
   * @param resource its implicit name
   * @param reason the rule the class name breaks
   */
  record UnusableName(String deviceClass, String resource, String reason) {}

  /**
   * @param deviceClass the class
   * @param resource its {@code spec.extendedResourceName}
   * @param reason the rule it breaks
   */
  record InvalidName(String deviceClass, String resource, String reason) {}

  /**
   * @param extendedResourceClaims claims the scheduler created (annotation {@code
   *     resource.kubernetes.io/extended-resource-claim: "true"})
   * @param podsWithExtendedResourceClaimStatus pods whose status names such a claim
   * @param pendingAllocation claims without {@code status.allocation}
   * @param onNoExecuteTaintedDevices allocated devices that now carry a NoExecute taint
   */
  record Claims(
      List<ExtendedClaim> extendedResourceClaims,
      List<PodClaimStatus> podsWithExtendedResourceClaimStatus,
      List<PendingClaim> pendingAllocation,
      List<TaintedAllocation> onNoExecuteTaintedDevices) {}

  /**
   * @param namespace the namespace
   * @param name the claim
   * @param pod the owning pod (controller owner reference)
   * @param podExists whether that pod still exists
   * @param allocated whether {@code status.allocation} is set
   * @param node the node the allocation is for
   * @param devices allocated devices as {@code driver/pool/device}
   */
  record ExtendedClaim(
      String namespace,
      String name,
      Optional<String> pod,
      boolean podExists,
      boolean allocated,
      Optional<String> node,
      List<String> devices) {}

  /**
   * @param namespace the namespace
   * @param pod the pod
   * @param node the node it is bound to
   * @param claim {@code status.extendedResourceClaimStatus.resourceClaimName}
   * @param claimExists whether that claim exists
   * @param requests {@code container: resource -> request} for each mapping
   */
  record PodClaimStatus(
      String namespace,
      String pod,
      Optional<String> node,
      String claim,
      boolean claimExists,
      List<String> requests) {}

  /**
   * @param namespace the namespace
   * @param name the claim
   * @param extendedResourceClaim whether the scheduler created it for extended resources
   */
  record PendingClaim(String namespace, String name, boolean extendedResourceClaim) {}

  /**
   * @param namespace the claim's namespace
   * @param claim the claim
   * @param node the node the allocation is for
   * @param device {@code driver/pool/device}
   * @param taint {@code key=value:NoExecute}
   * @param source {@code ResourceSlice <name>} or {@code DeviceTaintRule <name>}
   * @param tolerated whether the allocation tolerates it (then without eviction)
   */
  record TaintedAllocation(
      String namespace,
      String claim,
      Optional<String> node,
      String device,
      String taint,
      String source,
      boolean tolerated) {}

  /**
   * @param ruleApiVersion the version DeviceTaintRules were read in; absent when not served
   * @param rules every DeviceTaintRule
   * @param devices every tainted device in a ResourceSlice (taints set by drivers)
   */
  record Taints(Optional<String> ruleApiVersion, List<Rule> rules, List<TaintedDevice> devices) {}

  /**
   * @param name the rule
   * @param effect {@code None}, {@code NoSchedule} or {@code NoExecute}
   * @param key the taint key
   * @param value the taint value (may be empty)
   * @param driver selector: driver
   * @param pool selector: pool
   * @param device selector: device
   * @param selectedDevices published devices the rule selects now
   * @param dryRun the figures the eviction controller reports for an effect-None rule
   * @param condition the {@code EvictionInProgress} condition as {@code Status Reason: message}
   */
  record Rule(
      String name,
      String effect,
      String key,
      String value,
      Optional<String> driver,
      Optional<String> pool,
      Optional<String> device,
      int selectedDevices,
      Optional<DryRun> dryRun,
      Optional<String> condition) {}

  /**
   * @param publishedDevices published devices selected
   * @param allocatedDevices allocated devices selected
   * @param pods pods that would be evicted with NoExecute
   * @param namespaces namespaces of those pods
   */
  record DryRun(int publishedDevices, int allocatedDevices, int pods, int namespaces) {}

  /**
   * @param node the node whose slice holds the device; absent for network-attached pools
   * @param driver the driver
   * @param pool the pool
   * @param device the device
   * @param key the taint key
   * @param value the taint value (may be empty)
   * @param effect the effect
   */
  record TaintedDevice(
      Optional<String> node,
      String driver,
      String pool,
      String device,
      String key,
      String value,
      String effect) {}

  /**
   * @param alphaFields objects using fields of features that are alpha (or beta and off by default)
   *     in Kubernetes 1.37
   * @param scheduler what the scheduler's command line shows
   */
  record Settings(List<AlphaField> alphaFields, Scheduler scheduler) {}

  /**
   * @param feature the feature gate
   * @param stage {@code alpha} or {@code beta (off by default)}
   * @param object {@code Kind name}
   * @param field the first field path found
   */
  record AlphaField(String feature, String stage, String object, String field) {}

  /**
   * @param readable whether a kube-scheduler pod was found in kube-system
   * @param source the pod it was read from
   * @param featureGates the {@code --feature-gates} it sets
   */
  record Scheduler(boolean readable, Optional<String> source, Map<String, Boolean> featureGates) {}

  /**
   * @param what the resource or path
   * @param error the API server's answer
   */
  record Unreadable(String what, String error) {}
}
