/**
 * Not API: the client's plumbing (HTTP/1.1 transport, rate limit, backoff, TLS identity, PEM,
 * bearer tokens and exec credentials) and the one wording of failures ({@link
 * io.dra4j.kube.internal.Failures}) every dra4j module shares. Nothing here is for vendors, and it
 * may change in any release.
 */
package io.dra4j.kube.internal;
