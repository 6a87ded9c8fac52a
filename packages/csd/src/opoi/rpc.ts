/**
 * The Opoi category: the proof-of-inference lifecycle over JSON-RPC, with the reference node's
 * method names and positional orders. Reads need only the chain; the actions are wallet sends
 * (opoi/wallet-actions.ts), so they exist only with a wallet. Arguments are checked before
 * anything is signed (-5 address, -6 funds, -8 parameter, naming the field); what only the chain
 * can decide (windows, stakes, duplicates) comes back as -26 with the rule's bad-opoi-* reason.
 * Each concern has its module in opoi/rpc/; this registers them all.
 */
import type { RpcRegistry } from '../rpc/registry.ts';
import type { OpoiContext } from './context.ts';
import { registerOpoiActionMethods } from './rpc/actions.ts';
import { registerOpoiAuditMethods } from './rpc/audits.ts';
import { registerOpoiContentMethods } from './rpc/content.ts';
import { registerManifestActionMethod, registerManifestReadMethods } from './rpc/manifests.ts';
import { registerOpoiReadMethods } from './rpc/reads.ts';
import { registerOpoiVerifiableMethods } from './rpc/verifiable.ts';

export function registerOpoiMethods(registry: RpcRegistry, ctx: OpoiContext): void {
  registerOpoiReadMethods(registry, ctx);
  registerOpoiAuditMethods(registry, ctx);
  registerOpoiContentMethods(registry, ctx);
  registerManifestReadMethods(registry, ctx);
  if (!ctx.wallet) return;
  registerOpoiActionMethods(registry, ctx);
  registerOpoiVerifiableMethods(registry, ctx);
  registerManifestActionMethod(registry, ctx);
}
