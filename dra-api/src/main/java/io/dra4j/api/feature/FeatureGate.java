package io.dra4j.api.feature;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a part of the model that mirrors a Kubernetes field (or a whole type or capability) behind
 * a feature gate that is not generally available at the Kubernetes version dra4j targets (v1.37.2).
 * An alpha gate is off unless the cluster turns it on; a beta gate is on by default and may be
 * turned off. Where the gate is off the API server drops the field on write (the slice publisher
 * then reports the dropped fields with the gates it suspects) and the scheduler and kubelet ignore
 * it.
 *
 * <p>The gate and its stage are those of {@code k8s.io/kubernetes@v1.37.2/pkg/features/
 * kube_features.go}; the field's gate is the one its {@code +featureGate} comment names in {@code
 * k8s.io/api@v0.37.2/resource/v1/types.go}. Fields whose gate is GA at v1.37.2 carry no mark.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE, ElementType.FIELD})
public @interface FeatureGate {

  /** The gate's name as Kubernetes spells it, e.g. {@code DRAConsumableCapacity}. */
  String name();

  /** The gate's stage at Kubernetes v1.37.2. */
  Stage stage();

  /** The stages of a gate that is not generally available. */
  enum Stage {
    /** Off by default: a cluster must turn the gate on. */
    ALPHA,
    /** On by default; a cluster may turn it off. */
    BETA
  }
}
