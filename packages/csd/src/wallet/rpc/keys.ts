/**
 * Wallet RPC methods for keys and addresses: getnewaddress, getrawchangeaddress, getaddressinfo,
 * importprivkey, importaddress, dumpprivkey (Core's rpc/addresses.cpp and rpc/backup.cpp).
 */
import {
  AddressError,
  addressToScript,
  decodeWif,
  encodeWif,
  fromHex,
  hash160,
  p2shScript,
  publicKeyCreate,
  scriptToAddress,
  solver,
  toHex,
  type Destination,
} from '@cs/consensus';
import type { WalletRpcContext } from './context.ts';
import { isHexOrEmpty } from '../../rpc/params.ts';
import { RpcError, RpcErrorCode } from '../../rpc/errors.ts';
import type { JsonObject } from '../../format/json-value.ts';
import type { RpcRegistry } from '../../rpc/registry.ts';
import { fingerprintHex, formatPath } from '../hd.ts';
import type { KeyOwnership } from '../keyring.ts';
import { EXTERNAL, INTERNAL } from '../records.ts';
import type { Wallet } from '../wallet.ts';
import { EXAMPLE_ADDRESS, decodeAddressOrThrow, parseAddress, parseAddressType, parseLabel, walletCall, walletOf } from './common.ts';

/** Core's DescribeAddress fields for getaddressinfo. */
function describeDestination(d: Destination): JsonObject {
  switch (d.type) {
    case 'pubkeyhash':
      return { isscript: false, iswitness: false };
    case 'scripthash':
      return { isscript: true, iswitness: false };
    case 'witness':
      return {
        isscript: d.version === 0 ? d.program.length === 32 : undefined,
        iswitness: true,
        witness_version: d.version,
        witness_program: toHex(d.program),
      };
  }
}

/** The key behind a P2PKH or P2WPKH script, if the wallet holds it. */
export function keyOwnershipOf(wallet: Wallet, script: Uint8Array): KeyOwnership | undefined {
  const { type, solutions } = solver(script);
  if (type !== 'pubkeyhash' && type !== 'witness_v0_keyhash') return undefined;
  return wallet.keyring.keyForHash(solutions[0]);
}

function addressInfo(ctx: WalletRpcContext, wallet: Wallet, address: string): JsonObject {
  const { destination, script } = decodeAddressOrThrow(ctx, address);
  const own = wallet.keyring.ownership(script);
  const key = own && own.kind !== 'watch' ? own : undefined;
  const label = wallet.keyring.label(script);
  const hd = key?.kind === 'hd' ? key : undefined;
  return {
    address: scriptToAddress(script, ctx.params.address) ?? address,
    scriptPubKey: toHex(script),
    ismine: key !== undefined,
    solvable: key !== undefined,
    iswatchonly: own?.kind === 'watch',
    ...describeDestination(destination),
    pubkey: key ? toHex(key.publicKey) : undefined,
    iscompressed: key ? key.publicKey.length === 33 : undefined,
    timestamp: own ? wallet.keyring.birthOf(own, script) : undefined,
    hdkeypath: hd ? formatPath(wallet.keyring.path(hd)) : undefined,
    hdseedid: hd ? toHex(wallet.keyring.seedId) : undefined,
    hdmasterfingerprint: hd ? fingerprintHex(wallet.keyring.masterFingerprint) : undefined,
    labels: label !== undefined ? [label] : [],
    ischange: hd?.chain === INTERNAL,
  };
}

/** An address, or an output script in hex (importaddress accepts both). */
function addressOrScript(ctx: WalletRpcContext, text: string): Uint8Array {
  try {
    return addressToScript(text, ctx.params.address);
  } catch (e) {
    if (!(e instanceof AddressError)) throw e;
  }
  if (text.length > 0 && isHexOrEmpty(text)) return fromHex(text);
  throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'Invalid cs address or script');
}

/** Rescans the whole chain and the mempool after an import (Core: from the key's birth, which imports leave at the genesis). */
async function rescanAfterImport(wallet: Wallet): Promise<void> {
  await wallet.rescanner.scan(0, null);
  wallet.scanMempool();
}

const RESCANNING = 'Wallet is currently rescanning. Abort existing rescan or wait.';
const RESCAN_DESCRIPTION =
  'Scan the chain and mempool for wallet transactions. The call returns once the scan is done; getwalletinfo shows its progress meanwhile.';

export function registerKeyMethods(registry: RpcRegistry, ctx: WalletRpcContext): void {
  registry.register({
    name: 'getnewaddress',
    category: 'Wallet',
    description:
      'Returns a new cs address for receiving payments.\n' +
      "If 'label' is specified, it is added to the address book\n" +
      "so payments received with the address will be associated with 'label'.",
    params: [
      {
        name: 'label',
        type: 'string',
        default: '',
        description:
          'The label name for the address to be linked to. It can also be set to the empty string "" to represent the default label. The label does not need to be unique.',
      },
      { name: 'address_type', type: 'string', optional: true, description: 'The address type to use. Options are "legacy" and "bech32" (default).' },
    ],
    result: '"str"    (string) The new cs address',
    examples: [{ args: [] }, { args: ['', 'legacy'] }],
    handler: async ([label, addressType], call) => {
      const wallet = walletOf(ctx, call);
      const type = parseAddressType(addressType, 'bech32');
      const script = wallet.newAddressScript(type, EXTERNAL, parseLabel(label));
      return scriptToAddress(script, ctx.params.address)!;
    },
  });

  registry.register({
    name: 'getrawchangeaddress',
    category: 'Wallet',
    description: 'Returns a new cs address, for receiving change.\nThis is for use with raw transactions, NOT normal use.',
    params: [
      { name: 'address_type', type: 'string', optional: true, description: 'The address type to use. Options are "legacy" and "bech32" (default).' },
    ],
    result: '"str"    (string) The address',
    examples: [{ args: [] }, { args: ['legacy'] }],
    handler: async ([addressType], call) => {
      const wallet = walletOf(ctx, call);
      const script = wallet.newAddressScript(parseAddressType(addressType, 'bech32'), INTERNAL);
      return scriptToAddress(script, ctx.params.address)!;
    },
  });

  registry.register({
    name: 'getaddressinfo',
    category: 'Wallet',
    description:
      'Return information about the given cs address.\nSome of the information will only be present if the address is in the active wallet.',
    params: [{ name: 'address', type: 'string', description: 'The cs address for which to get information.' }],
    result: [
      '{                                   (json object)',
      '  "address" : "str",                (string) The cs address validated.',
      '  "scriptPubKey" : "hex",           (string) The hex-encoded output script generated by the address.',
      '  "ismine" : true|false,            (boolean) If the address is yours.',
      '  "solvable" : true|false,          (boolean) If we know how to spend coins sent to this address, ignoring the possible lack of private keys.',
      '  "iswatchonly" : true|false,       (boolean) If the address is watch-only.',
      '  "isscript" : true|false,          (boolean, optional) If the key is a script.',
      '  "iswitness" : true|false,         (boolean) If the address is a witness address.',
      '  "witness_version" : n,            (numeric, optional) The version number of the witness program.',
      '  "witness_program" : "hex",        (string, optional) The hex value of the witness program.',
      '  "pubkey" : "hex",                 (string, optional) The hex value of the raw public key for single-key addresses.',
      '  "iscompressed" : true|false,      (boolean, optional) If the pubkey is compressed.',
      '  "timestamp" : xxx,                (numeric, optional) The creation time of the key, if available, expressed in UNIX epoch time.',
      '  "hdkeypath" : "str",              (string, optional) The HD keypath, if the key is HD and available.',
      '  "hdseedid" : "hex",               (string, optional) The Hash160 of the HD seed.',
      '  "hdmasterfingerprint" : "hex",    (string, optional) The fingerprint of the master key.',
      '  "labels" : [ "str", ... ],        (json array) Array of labels associated with the address (at most one).',
      '  "ischange" : true|false           (boolean) If the address was used for change output.',
      '}',
    ].join('\n'),
    examples: [{ args: [EXAMPLE_ADDRESS] }],
    handler: async ([address], call) => addressInfo(ctx, walletOf(ctx, call), address),
  });

  registry.register({
    name: 'importprivkey',
    category: 'Wallet',
    description:
      'Adds a private key (as returned by dumpprivkey) to your wallet. Requires a new wallet backup.\n' +
      'The wallet then watches its legacy (P2PKH) and, for a compressed key, its bech32 (P2WPKH) address.\n' +
      'Hint: use importmulti to import more than one private key.\n\n' +
      'Note: This call can take a long time to complete if rescan is true, during that time, other rpc calls\n' +
      'may report that the imported key exists but related transactions are still missing.',
    params: [
      { name: 'privkey', type: 'string', description: 'The private key (see dumpprivkey)' },
      { name: 'label', type: 'string', default: '', description: 'An optional label' },
      { name: 'rescan', type: 'boolean', default: true, description: RESCAN_DESCRIPTION },
    ],
    result: 'null    (json null)',
    examples: [{ args: ['mykey'] }, { args: ['mykey', 'testing', false], description: 'Import without rescan' }],
    handler: async ([privkey, label, rescan], call) => {
      const wallet = walletOf(ctx, call);
      return walletCall(async () => {
        const masterKey = wallet.encryption.requireKey();
        if (rescan && wallet.rescanner.progress) throw new RpcError(RpcErrorCode.WALLET_ERROR, RESCANNING);
        let key;
        try {
          key = decodeWif(privkey, ctx.params.address);
        } catch (e) {
          if (!(e instanceof AddressError)) throw e;
          throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'Invalid private key encoding');
        }
        const publicKey = publicKeyCreate(key.privateKey, key.compressed);
        const script = wallet.scriptForKey(key.compressed ? 'bech32' : 'legacy', publicKey);
        const parsed = parseLabel(label);
        wallet.store.write((w) => {
          const known = wallet.keyring.ownership(script);
          if (!known || known.kind === 'watch') wallet.keyring.importKey(key.privateKey, publicKey, wallet.now(), masterKey, w);
          wallet.keyring.setLabel(script, parsed, w);
        });
        key.privateKey.fill(0);
        if (rescan) await rescanAfterImport(wallet);
        return null;
      });
    },
  });

  registry.register({
    name: 'importaddress',
    category: 'Wallet',
    description:
      'Adds an address or script (in hex) that can be watched as if it were in your wallet but cannot be used to spend. Requires a new wallet backup.\n\n' +
      'Note: This call can take a long time to complete if rescan is true, during that time, other rpc calls\n' +
      'may report that the imported address exists but related transactions are still missing.',
    params: [
      { name: 'address', type: 'string', description: 'The cs address (or hex-encoded script)' },
      { name: 'label', type: 'string', default: '', description: 'An optional label' },
      { name: 'rescan', type: 'boolean', default: true, description: RESCAN_DESCRIPTION },
      { name: 'p2sh', type: 'boolean', default: false, description: 'Add the P2SH version of the script as well' },
    ],
    result: 'null    (json null)',
    examples: [{ args: [EXAMPLE_ADDRESS] }, { args: [EXAMPLE_ADDRESS, 'testing', false], description: 'Import without rescan' }],
    handler: async ([address, label, rescan, p2sh], call) => {
      const wallet = walletOf(ctx, call);
      const script = addressOrScript(ctx, address);
      const scripts = [script];
      // As Core: the P2SH form only for a raw script, not for an address.
      if (p2sh && !scriptToAddress(script, ctx.params.address)) scripts.push(p2shScript(hash160(script)));
      if (scripts.some((s) => wallet.hasKeyFor(s))) {
        throw new RpcError(RpcErrorCode.WALLET_ERROR, 'The wallet already contains the private key for this address or script');
      }
      if (rescan && wallet.rescanner.progress) throw new RpcError(RpcErrorCode.WALLET_ERROR, RESCANNING);
      const parsed = parseLabel(label);
      return walletCall(async () => {
        wallet.store.write((w) => {
          for (const s of scripts) {
            wallet.keyring.watch(s, wallet.now(), w);
            wallet.keyring.setLabel(s, parsed, w);
          }
        });
        if (rescan) await rescanAfterImport(wallet);
        return null;
      });
    },
  });

  registry.register({
    name: 'dumpprivkey',
    category: 'Wallet',
    description: "Reveals the private key corresponding to 'address'.\nThen the importprivkey can be used with this output",
    params: [{ name: 'address', type: 'string', description: 'The cs address for the private key' }],
    result: '"str"    (string) The private key',
    examples: [{ args: [EXAMPLE_ADDRESS] }],
    handler: async ([address], call) => {
      const wallet = walletOf(ctx, call);
      return walletCall(() => {
        const masterKey = wallet.encryption.requireKey();
        const script = parseAddress(ctx, address);
        const { type } = solver(script);
        if (type !== 'pubkeyhash' && type !== 'witness_v0_keyhash') throw new RpcError(RpcErrorCode.TYPE_ERROR, 'Address does not refer to a key');
        const own = keyOwnershipOf(wallet, script);
        if (!own) throw new RpcError(RpcErrorCode.WALLET_ERROR, `Private key for address ${address} is not known`);
        const privateKey = wallet.keyring.privateKey(own, masterKey);
        try {
          return encodeWif({ privateKey, compressed: own.publicKey.length === 33 }, ctx.params.address);
        } finally {
          privateKey.fill(0);
        }
      });
    },
  });
}
