package io.dra4j.runtime.internal.kubelet;

import com.google.protobuf.DiscardUnknownFieldsParser;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;

/**
 * The conversion between a kubelet API's versions. An older version's messages are the newer one's
 * field for field (same numbers and types) less the fields added since, so a message converts by
 * reading its bytes as the other version's and dropping what that version does not know: what
 * upstream's generated conversions do field by field (e.g. {@code
 * k8s.io/kubelet@v0.37.2/pkg/apis/dra/v1beta1/zz_generated.conversion.go:169}, v1's {@code
 * share_id} "does not exist in peer-type"). Tests pin each pair's wire form.
 */
final class OlderVersions {

  private OlderVersions() {}

  static <M extends Message> M convert(MessageLite message, Parser<M> to) {
    try {
      return DiscardUnknownFieldsParser.wrap(to).parseFrom(message.toByteString());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(
          "the kubelet API's versions diverged: " + message.getClass().getName(), e);
    }
  }
}
