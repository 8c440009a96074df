package io.dra4j.testkit.apiserver;

import io.dra4j.e2e.Cluster;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeClients;

/**
 * The test kit's API server contract, run against the real kube-apiserver v1.37.2 of the e2e
 * cluster: the reference the fake must match, so every feature is claimed. A test that fails here
 * but passes against {@link FakeApiServerContractTest} is a difference in the fake (or a misreading
 * in the contract): fix the fake, or write it down as deliberate in FakeApiServer's Javadoc.
 *
 * <p>The contract assumes an empty server per test; here each test starts from a cleaned one: no
 * ResourceSlices, no claims in its namespaces, which exist (a real server refuses objects in a
 * namespace that does not).
 */
class RealApiServerContractIT extends KubeClientContractTest {
  private Cluster cluster;

  @Override
  protected KubeClient newClient() {
    cluster = Cluster.shared();
    for (String ns : new String[] {"ns", "ns1", "ns2"}) {
      cluster.apply("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns + "\n");
    }
    clean();
    return KubeClients.fromKubeconfig(cluster.adminKubeconfig());
  }

  @Override
  protected boolean supports(Feature feature) {
    return true;
  }

  @Override
  protected void stopServer() {
    clean();
  }

  private void clean() {
    cluster.kubectl("delete", "resourceslices", "--all", "--wait=true");
    cluster.kubectl("delete", "resourceclaims", "--all", "-n", "ns", "--wait=true");
    cluster.kubectl("delete", "resourceclaims", "--all", "-n", "ns1", "--wait=true");
    cluster.kubectl("delete", "resourceclaims", "--all", "-n", "ns2", "--wait=true");
    cluster.kubectl("delete", "node", "node-9", "--ignore-not-found");
  }
}
