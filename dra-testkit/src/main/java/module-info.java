/**
 * The test kit: a fake API server, an allocator that plays the scheduler, a kubelet simulator that
 * behaves as the v1.37.2 kubelet's DRA manager, a fault proxy, and the checks of published slices
 * against the API's schema and limits. For tests and development, never a node.
 */
module io.dra4j.testkit {
  requires transitive io.dra4j.runtime;
  requires transitive io.dra4j.kube;
  requires transitive jdk.httpserver;
  requires io.dra4j.cel;
  requires io.dra4j.validation;
  requires com.fasterxml.jackson.datatype.jdk8;
  requires info.picocli;
  requires transitive io.grpc;
  requires io.grpc.netty.shaded;
  requires io.grpc.stub;
  requires java.net.http;
  requires org.slf4j;

  exports io.dra4j.testkit.allocator;
  exports io.dra4j.testkit.apiserver;
  exports io.dra4j.testkit.faults;
  exports io.dra4j.testkit.kubelet;
  exports io.dra4j.testkit.schema;
  exports io.dra4j.testkit.slices;

  // picocli reads the standalone commands' options reflectively.
  opens io.dra4j.testkit.apiserver to
      info.picocli;
  opens io.dra4j.testkit.kubelet to
      info.picocli;
}
