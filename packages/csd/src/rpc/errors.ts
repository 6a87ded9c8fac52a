/**
 * The error type every RPC failure travels as. Its codes are Bitcoin Core's, in one table that
 * @cs/client shares (packages/client/src/error-codes.ts).
 */
export { RpcErrorCode, type RpcErrorCodeValue } from '@cs/client/error-codes';
import type { RpcErrorCodeValue } from '@cs/client/error-codes';

/** A failure reported to the client as `{code, message}`. Anything else a handler throws becomes MISC_ERROR. */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: RpcErrorCodeValue,
    message: string,
  ) {
    super(message);
  }
}
