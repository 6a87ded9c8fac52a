/**
 * The TLS port's certificate: the operator's (-tlscert/-tlskey), or a self-signed one generated at
 * first start into the data directory (key owner-only) and reused after. Miners connect with
 * certificate checks off (lolMiner --tls on, GMiner ssl://) unless the operator installs a real one.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
}

export async function loadOrCreateCertificate(certFile: string, keyFile: string, datadir: string): Promise<TlsMaterial> {
  if (certFile !== '' || keyFile !== '') {
    if (certFile === '' || keyFile === '') throw new Error('-tlscert and -tlskey go together');
    return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  }
  const cert = join(datadir, 'tls-cert.pem');
  const key = join(datadir, 'tls-key.pem');
  if (existsSync(cert) && existsSync(key)) return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
  const notAfterDate = new Date(Date.now() + 10 * 365 * 86_400_000);
  const pems = await generate([{ name: 'commonName', value: 'cs-pool' }], { keyType: 'ec', curve: 'P-256', algorithm: 'sha256', notAfterDate });
  writeFileSync(key, pems.private, { mode: 0o600 });
  writeFileSync(cert, pems.cert, { mode: 0o644 });
  return { cert: pems.cert, key: pems.private };
}
