/**
 * The core every node driver runs: {@code DraDriver}, CDI specs, the extended-resource guard, error
 * handling, atomic files and what a running driver reports; and the ResourceSlice publisher alone,
 * for a control-plane component ({@code io.dra4j.runtime.slices}). Its internal packages (kubelet
 * plugin servers, claims, checkpoint, slices, health) and the classes generated from the kubelet's
 * .proto files are exported only to the dra4j modules that need them.
 */
module io.dra4j.runtime {
  requires transitive io.dra4j.api;
  requires transitive io.dra4j.kube;
  requires io.dra4j.cel;
  requires io.dra4j.validation;
  requires com.google.common;
  requires com.google.protobuf;
  requires io.grpc;
  requires io.grpc.netty.shaded;
  requires io.grpc.protobuf;
  requires io.grpc.stub;
  requires java.logging;
  requires org.slf4j;

  exports io.dra4j.runtime;
  exports io.dra4j.runtime.cdi;
  exports io.dra4j.runtime.errors;
  exports io.dra4j.runtime.extendedresource;
  exports io.dra4j.runtime.files;
  exports io.dra4j.runtime.report;
  exports io.dra4j.runtime.slices;
  exports io.dra4j.runtime.internal.claims to
      io.dra4j.launcher;
  exports io.dra4j.runtime.internal.extendedresource to
      io.dra4j.doctor;
  exports io.dra4j.runtime.internal.health to
      io.dra4j.launcher;
  exports io.dra4j.runtime.internal.kubelet to
      io.dra4j.launcher,
      io.dra4j.testkit;
  exports io.dra4j.runtime.internal.observe to
      io.dra4j.launcher;
  exports io.dra4j.runtime.internal.slices to
      io.dra4j.launcher,
      io.dra4j.testkit;
  exports io.dra4j.proto.dra.v1 to
      io.dra4j.testkit;
  exports io.dra4j.proto.dra.v1beta1 to
      io.dra4j.testkit;
  exports io.dra4j.proto.health.v1 to
      io.dra4j.testkit;
  exports io.dra4j.proto.health.v1alpha1 to
      io.dra4j.testkit;
  exports io.dra4j.proto.pluginregistration to
      io.dra4j.testkit;

  // Jackson reads and writes CDI specs, checkpoints, device metadata and claim status reflectively.
  opens io.dra4j.runtime.cdi to
      com.fasterxml.jackson.databind;
  opens io.dra4j.runtime.internal.checkpoint to
      com.fasterxml.jackson.databind;
  opens io.dra4j.runtime.internal.claims to
      com.fasterxml.jackson.databind;
}
