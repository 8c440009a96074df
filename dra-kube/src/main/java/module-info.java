/**
 * The Kubernetes client a driver needs: the resource.k8s.io/v1 model and the objects around it
 * ({@code io.dra4j.kube}), HTTP/1.1 calls, watches and informers, kubeconfig and in-cluster
 * credentials. Its plumbing ({@code io.dra4j.kube.internal}) is for dra4j's own modules only.
 */
module io.dra4j.kube {
  requires transitive io.dra4j.api;
  requires transitive com.fasterxml.jackson.databind;
  requires com.fasterxml.jackson.datatype.jdk8;
  requires com.fasterxml.jackson.dataformat.yaml;
  requires org.slf4j;

  exports io.dra4j.kube;
  exports io.dra4j.kube.internal to
      io.dra4j.runtime,
      io.dra4j.launcher,
      io.dra4j.testkit;

  // Jackson builds the model's records and its package-private filters reflectively.
  opens io.dra4j.kube to
      com.fasterxml.jackson.databind;
}
