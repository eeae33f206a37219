// A certificate authority of one run and the certificate it signs for the scan target's name, made in memory when
// a run starts (docs/HOSTED-SCANS.md, Login): the pinning proxy presents it to the engine for an HTTPS target, so
// it can read and renew the session in the engine's traffic. Its private keys never leave the process; only the
// authority's certificate (public) is handed to the engine, which may check the proxy against it.
// @peculiar/x509 needs a Reflect metadata polyfill loaded before it (its README, "Reflect Polyfill Required").
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface RunCertificate {
  /** The run's authority's certificate (PEM): what the engine may trust. */
  authority: string;
  /** The target's certificate followed by the authority's (PEM), and its private key (PKCS #8 PEM). */
  chain: string;
  key: string;
}

const serial = () =>
  Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '7');

/** A fresh authority and a certificate for `hostname` (a name or an IP address), valid until `notAfter`. */
export async function runCertificate(hostname: string, notAfter: Date): Promise<RunCertificate> {
  const notBefore = new Date(Date.now() - 60_000);
  const authorityKeys = await webcrypto.subtle.generateKey(algorithm, false, ['sign', 'verify']);
  const authority = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=hawk-scanner agent run authority',
    notBefore,
    notAfter,
    keys: authorityKeys as CryptoKeyPair,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(authorityKeys.publicKey as CryptoKey),
    ],
  });
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
  const name = hostname.replace(/^\[|\]$/g, '');
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${isIP(name) ? 'hawk-scanner target' : name}`,
    issuer: authority.subject,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: (authorityKeys as CryptoKeyPair).privateKey,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: isIP(name) ? 'ip' : 'dns', value: name }]),
      await x509.AuthorityKeyIdentifierExtension.create(authority),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/.{64}/g, '$&\n').trimEnd()}\n-----END PRIVATE KEY-----\n`;
  const authorityPem = authority.toString('pem');
  return { authority: `${authorityPem}\n`, chain: `${leaf.toString('pem')}\n${authorityPem}\n`, key };
}
