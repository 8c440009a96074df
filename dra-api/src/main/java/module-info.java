/**
 * What a vendor codes against: {@code DeviceProvider} and its optional capability interfaces, the
 * device model, claim allocations, CDI container edits, health reports and {@code DeviceEnricher}.
 */
module io.dra4j.api {
  requires transitive com.fasterxml.jackson.annotation;

  exports io.dra4j.api.binding;
  exports io.dra4j.api.cdi;
  exports io.dra4j.api.claim;
  exports io.dra4j.api.device;
  exports io.dra4j.api.feature;
  exports io.dra4j.api.health;
  exports io.dra4j.api.metadata;
  exports io.dra4j.api.provider;
  exports io.dra4j.api.status;

  // Jackson reads and writes the Kubernetes model through private creators and fields, so that
  // no constructor is API.
  opens io.dra4j.api.device to
      com.fasterxml.jackson.databind;
  opens io.dra4j.api.status to
      com.fasterxml.jackson.databind;
}
