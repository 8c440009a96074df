package io.dra4j.kube.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PEM certificates and private keys without BouncyCastle: PKCS#8 ({@code PRIVATE KEY}), PKCS#1
 * ({@code RSA PRIVATE KEY}) and SEC1 ({@code EC PRIVATE KEY}); the last two are wrapped into PKCS#8
 * DER here, which is all the JDK's KeyFactory reads.
 */
public final class Pem {
  private static final Pattern BLOCK =
      Pattern.compile(
          "-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]*?)\\s*-----END \\1-----",
          Pattern.DOTALL);
  // OIDs, DER-encoded with tag and length.
  private static final byte[] OID_RSA = {
    0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01
  };
  private static final byte[] OID_EC_PUBLIC_KEY = {
    0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01
  };
  private static final byte[] DER_NULL = {0x05, 0x00};
  private static final byte[] VERSION_0 = {0x02, 0x01, 0x00};

  private Pem() {}

  record Block(String type, byte[] der) {}

  static List<Block> blocks(String pem) {
    List<Block> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(pem);
    while (m.find()) {
      out.add(new Block(m.group(1), Base64.getMimeDecoder().decode(m.group(2))));
    }
    return out;
  }

  public static List<X509Certificate> certificates(String pem, String what) {
    List<X509Certificate> certs = new ArrayList<>();
    try {
      CertificateFactory cf = CertificateFactory.getInstance("X.509");
      for (Block b : blocks(pem)) {
        if (b.type().equals("CERTIFICATE")) {
          certs.add((X509Certificate) cf.generateCertificate(new ByteArrayInputStream(b.der())));
        }
      }
    } catch (CertificateException e) {
      throw new IllegalArgumentException(what + ": not a valid PEM certificate: " + e.getMessage());
    }
    if (certs.isEmpty()) {
      throw new IllegalArgumentException(what + ": no \"-----BEGIN CERTIFICATE-----\" block found");
    }
    return certs;
  }

  public static PrivateKey privateKey(String pem, String what) {
    for (Block b : blocks(pem)) {
      switch (b.type()) {
        case "PRIVATE KEY":
          return fromPkcs8(b.der(), what);
        case "RSA PRIVATE KEY":
          return fromPkcs8(
              sequence(VERSION_0, sequence(OID_RSA, DER_NULL), tlv(0x04, b.der())), what);
        case "EC PRIVATE KEY":
          byte[] curve = sec1Curve(b.der(), what);
          return fromPkcs8(
              sequence(VERSION_0, sequence(OID_EC_PUBLIC_KEY, curve), tlv(0x04, b.der())), what);
        case "ENCRYPTED PRIVATE KEY":
          throw new IllegalArgumentException(
              what + ": encrypted private keys are not supported; decrypt it first");
        default:
          // e.g. "EC PARAMETERS" that openssl writes before the key: skip.
      }
    }
    throw new IllegalArgumentException(
        what
            + ": no private key found; expected a PEM block \"PRIVATE KEY\" (PKCS#8),"
            + " \"RSA PRIVATE KEY\" (PKCS#1) or \"EC PRIVATE KEY\" (SEC1)");
  }

  private static PrivateKey fromPkcs8(byte[] der, String what) {
    List<String> errors = new ArrayList<>();
    for (String alg : new String[] {"RSA", "EC", "Ed25519", "EdDSA"}) {
      try {
        return KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException | RuntimeException e) {
        errors.add(alg + ": " + e.getMessage());
      }
    }
    throw new IllegalArgumentException(what + ": unreadable private key (" + errors + ")");
  }

  /** The namedCurve OID (with tag and length) from the [0] parameters of a SEC1 ECPrivateKey. */
  private static byte[] sec1Curve(byte[] der, String what) {
    Der seq = Der.read(der, 0);
    if (seq.tag != 0x30) {
      throw new IllegalArgumentException(what + ": EC PRIVATE KEY is not a DER sequence");
    }
    int pos = seq.contentStart;
    while (pos < seq.end) {
      Der field = Der.read(der, pos);
      if (field.tag == 0xa0) {
        Der oid = Der.read(der, field.contentStart);
        if (oid.tag == 0x06) {
          byte[] out = new byte[oid.end - field.contentStart];
          System.arraycopy(der, field.contentStart, out, 0, out.length);
          return out;
        }
      }
      pos = field.end;
    }
    throw new IllegalArgumentException(
        what + ": EC PRIVATE KEY has no named-curve parameters; re-export it with the curve");
  }

  /** One DER tag-length-value header. */
  private static final class Der {
    final int tag;
    final int contentStart;
    final int end;

    private Der(int tag, int contentStart, int end) {
      this.tag = tag;
      this.contentStart = contentStart;
      this.end = end;
    }

    static Der read(byte[] b, int pos) {
      int tag = b[pos] & 0xff;
      int len = b[pos + 1] & 0xff;
      int start = pos + 2;
      if (len >= 0x80) {
        int n = len & 0x7f;
        len = 0;
        for (int i = 0; i < n; i++) {
          len = (len << 8) | (b[start + i] & 0xff);
        }
        start += n;
      }
      if (start + len > b.length) {
        throw new IllegalArgumentException("truncated DER data");
      }
      return new Der(tag, start, start + len);
    }
  }

  static byte[] sequence(byte[]... parts) {
    ByteArrayOutputStream content = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      content.writeBytes(p);
    }
    return tlv(0x30, content.toByteArray());
  }

  static byte[] tlv(int tag, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int len = content.length;
    if (len < 0x80) {
      out.write(len);
    } else {
      int bytes = len > 0xffffff ? 4 : len > 0xffff ? 3 : len > 0xff ? 2 : 1;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write((len >>> (8 * i)) & 0xff);
      }
    }
    out.writeBytes(content);
    return out.toByteArray();
  }
}
