package io.dra4j.kube;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A kubeconfig for a plain-HTTP test server on the loopback address, with a bearer token. */
final class PlainKubeconfig {
  private PlainKubeconfig() {}

  static Path write(Path file, int port, String token) throws IOException {
    return Files.writeString(
        file,
        "apiVersion: v1\nkind: Config\ncurrent-context: x\n"
            + "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:"
            + port
            + "'}}]\n"
            + "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
            + "users: [{name: u, user: {token: "
            + token
            + "}}]\n");
  }
}
