/** Generates a root CA → sub CA → server certificate chain with openssl in a temp dir, as the platform's is built. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestChain {
  dir: string;
  rootFile: string;
  subFile: string;
  root: string;
  sub: string;
  /** Server certificate for IP 127.0.0.1 and localhost, issued by the sub CA. */
  leaf: string;
  leafKey: string;
  /** Server certificate issued by the sub CA for another name only (other.example). */
  otherLeaf: string;
  otherLeafKey: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function issue(dir: string, name: string, subject: string, issuer: string, ext: string): void {
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(dir, ['req', ...EC, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${issuer}.pem`,
    '-CAkey',
    `${issuer}.key`,
    '-CAcreateserial',
    '-out',
    `${name}.pem`,
    '-days',
    '2',
    '-sha256',
    '-extfile',
    `${name}.ext`,
  ]);
}

export function generateChain(): TestChain {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-tls-'));
  openssl(dir, [
    'req',
    '-x509',
    ...EC,
    '-keyout',
    'root.key',
    '-out',
    'root.pem',
    '-days',
    '2',
    '-sha256',
    '-subj',
    '/CN=botflow Test Root CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  const caExt = 'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n';
  issue(dir, 'sub', '/CN=botflow Test Sub CA', 'root', caExt);
  const serverExt = (san: string) =>
    `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=${san}\n`;
  issue(dir, 'server', '/CN=127.0.0.1', 'sub', serverExt('IP:127.0.0.1,DNS:localhost'));
  issue(dir, 'other', '/CN=other.example', 'sub', serverExt('DNS:other.example'));
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return {
    dir,
    rootFile: join(dir, 'root.pem'),
    subFile: join(dir, 'sub.pem'),
    root: read('root.pem'),
    sub: read('sub.pem'),
    leaf: read('server.pem'),
    leafKey: read('server.key'),
    otherLeaf: read('other.pem'),
    otherLeafKey: read('other.key'),
  };
}
