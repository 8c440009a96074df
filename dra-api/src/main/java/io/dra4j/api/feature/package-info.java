/**
 * Kubernetes feature gates as the model marks them: {@link io.dra4j.api.feature.FeatureGate} on
 * every field of an alpha or beta feature.
 */
package io.dra4j.api.feature;
