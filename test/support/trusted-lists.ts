// EU trusted lists written and signed by the tests (never fetched): parties (certificates and keys made here), a
// list's XML, LOTL pointers, services, and an enveloped XML-DSig signature (RSA or ECDSA P-256).
import 'reflect-metadata'; // @peculiar/x509 (tsyringe) needs the Reflect metadata polyfill
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { SignedXml } from 'xml-crypto';
import { CA_QC, ECDSA_ALGORITHMS } from '../../server/src/validators/pdf-signature/trusted-lists.ts';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);
export const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
export const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
export const GRANTED = 'http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/granted';
export const WITHDRAWN = 'http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/withdrawn';
export const ACCREDITED = 'http://uri.etsi.org/TrstSvc/Svcstatus/accredited';

export interface Party {
  cert: x509.X509Certificate;
  keys: CryptoKeyPair;
  pem: string;
  keyPem: string;
  der: Uint8Array;
}

export async function party(name: string, alg: typeof RSA | typeof EC, issuer?: Party, ca = true): Promise<Party> {
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const common = {
    serialNumber: Math.floor(Math.random() * 1e9).toString(16).padStart(8, '1'),
    notBefore: new Date('2010-01-01T00:00:00Z'),
    notAfter: new Date('2040-01-01T00:00:00Z'),
    signingAlgorithm: alg,
    extensions: [new x509.BasicConstraintsExtension(ca, undefined, true), new x509.KeyUsagesExtension(ca ? x509.KeyUsageFlags.keyCertSign : x509.KeyUsageFlags.digitalSignature, true)],
  };
  const cert = issuer
    ? await x509.X509CertificateGenerator.create({ ...common, subject: `CN=${name}`, issuer: issuer.cert.subject, publicKey: keys.publicKey, signingKey: issuer.keys.privateKey })
    : await x509.X509CertificateGenerator.createSelfSigned({ ...common, name: `CN=${name}`, keys });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`;
  return { cert, keys, pem: cert.toString('pem'), keyPem, der: new Uint8Array(cert.rawData) };
}

const b64 = (p: Party) => Buffer.from(p.der).toString('base64');
const sdi = (p: Party) => `<tsl:ServiceDigitalIdentity><tsl:DigitalId><tsl:X509Certificate>${b64(p)}</tsl:X509Certificate></tsl:DigitalId></tsl:ServiceDigitalIdentity>`;

export function listXml(territory: string, inner: { pointers?: string; tsps?: string; nextUpdate?: string; sequence?: number; issued?: string; uris?: string[] }): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<tsl:TrustServiceStatusList xmlns:tsl="http://uri.etsi.org/02231/v2#" Id="tsl" TSLTag="http://uri.etsi.org/19612/TSLTag">` +
    `<tsl:SchemeInformation><tsl:TSLVersionIdentifier>5</tsl:TSLVersionIdentifier><tsl:TSLSequenceNumber>${inner.sequence ?? 42}</tsl:TSLSequenceNumber>` +
    `<tsl:SchemeTerritory>${territory}</tsl:SchemeTerritory>` +
    (inner.uris ? `<tsl:SchemeInformationURI>${inner.uris.map((u) => `<tsl:URI xml:lang="en">${u}</tsl:URI>`).join('')}</tsl:SchemeInformationURI>` : '') +
    `<tsl:ListIssueDateTime>${inner.issued ?? '2026-01-01T00:00:00Z'}</tsl:ListIssueDateTime>` +
    `<tsl:NextUpdate><tsl:dateTime>${inner.nextUpdate ?? '2099-01-01T00:00:00Z'}</tsl:dateTime></tsl:NextUpdate>` +
    (inner.pointers ? `<tsl:PointersToOtherTSL>${inner.pointers}</tsl:PointersToOtherTSL>` : '') +
    `</tsl:SchemeInformation>` +
    (inner.tsps ? `<tsl:TrustServiceProviderList>${inner.tsps}</tsl:TrustServiceProviderList>` : '') +
    `</tsl:TrustServiceStatusList>`
  );
}

/**
 * A LOTL pointer as the Commission writes them: the territory's signer certificates, where the list is, and its
 * AdditionalInformation (territory, MimeType in the additionaltypes namespace).
 */
export const pointer = (territory: string, signer: Party, location = `https://tl.example/${territory}.xml`, mime = 'application/vnd.etsi.tsl+xml') =>
  `<tsl:OtherTSLPointer><tsl:ServiceDigitalIdentities>${sdi(signer)}</tsl:ServiceDigitalIdentities><tsl:TSLLocation>${location}</tsl:TSLLocation>` +
  `<tsl:AdditionalInformation><tsl:OtherInformation><tsl:SchemeTerritory>${territory}</tsl:SchemeTerritory></tsl:OtherInformation>` +
  `<tsl:OtherInformation><ns3:MimeType xmlns:ns3="http://uri.etsi.org/02231/v2/additionaltypes#">${mime}</ns3:MimeType></tsl:OtherInformation></tsl:AdditionalInformation></tsl:OtherTSLPointer>`;

export function service(name: string, ca: Party, status: string, since: string, history: [string, string][] = [], type = CA_QC): string {
  return (
    `<tsl:TSPService><tsl:ServiceInformation><tsl:ServiceTypeIdentifier>${type}</tsl:ServiceTypeIdentifier>` +
    `<tsl:ServiceName><tsl:Name xml:lang="en">${name}</tsl:Name></tsl:ServiceName>${sdi(ca)}` +
    `<tsl:ServiceStatus>${status}</tsl:ServiceStatus><tsl:StatusStartingTime>${since}</tsl:StatusStartingTime></tsl:ServiceInformation>` +
    (history.length
      ? `<tsl:ServiceHistory>${history.map(([s, t]) => `<tsl:ServiceHistoryInstance><tsl:ServiceTypeIdentifier>${type}</tsl:ServiceTypeIdentifier><tsl:ServiceStatus>${s}</tsl:ServiceStatus><tsl:StatusStartingTime>${t}</tsl:StatusStartingTime></tsl:ServiceHistoryInstance>`).join('')}</tsl:ServiceHistory>`
      : '') +
    `</tsl:TSPService>`
  );
}

export const tsp = (name: string, services: string) =>
  `<tsl:TrustServiceProvider><tsl:TSPInformation><tsl:TSPName><tsl:Name xml:lang="en">${name}</tsl:Name></tsl:TSPName></tsl:TSPInformation><tsl:TSPServices>${services}</tsl:TSPServices></tsl:TrustServiceProvider>`;

/** Signs `xml` (enveloped, `URI=""`, exclusive c14n) with `signer`'s key; KeyInfo names `keyInfoCert`. */
export function sign(xml: string, signer: Party, keyInfoCert: Party = signer): string {
  const ec = signer.cert.publicKey.algorithm.name === 'ECDSA';
  const sx = new SignedXml({
    privateKey: signer.keyPem,
    publicCert: keyInfoCert.pem,
    signatureAlgorithm: ec ? 'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256' : 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  Object.assign(sx.SignatureAlgorithms, ECDSA_ALGORITHMS);
  sx.addReference({
    xpath: '/*',
    uri: '',
    isEmptyUri: true,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sx.computeSignature(xml, { location: { reference: '/*', action: 'append' } });
  return sx.getSignedXml();
}
