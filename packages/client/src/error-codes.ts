/**
 * JSON-RPC error codes csd answers with. The numbers are Bitcoin Core's (src/rpc/protocol.h), so
 * that existing clients and scripts that branch on a code keep working; docs/rpc.md lists them
 * with the HTTP status each produces. csd throws them and @cs/client's RpcError carries them.
 */
export const RpcErrorCode = {
  // Standard JSON-RPC 2.0 errors: problems with the envelope, not with a call's arguments.
  INVALID_REQUEST: -32600, // not a request object, method missing or not a string, params neither array nor object, empty batch
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602, // reserved by the standard; Core (and we) use -1/-3/-8 instead
  INTERNAL_ERROR: -32603,
  PARSE_ERROR: -32700, // the body is not JSON

  // Implementation-defined server error (the -32000..-32099 range JSON-RPC 2.0 leaves to servers).
  // Core has no rate limit; ours needs a code that cannot collide with any of Core's.
  RATE_LIMITED: -32000,

  // General application errors.
  MISC_ERROR: -1, // a handler failed, or a method was called with the wrong number of arguments (message = its help)
  FORBIDDEN_BY_SAFE_MODE: -2, // unused, reserved by Core
  TYPE_ERROR: -3, // an argument has the wrong JSON type, or an amount is malformed
  INVALID_ADDRESS_OR_KEY: -5,
  OUT_OF_MEMORY: -7,
  INVALID_PARAMETER: -8, // an argument has the right type but a bad value; unknown or duplicate named parameter
  DATABASE_ERROR: -20,
  DESERIALIZATION_ERROR: -22,
  VERIFY_ERROR: -25,
  VERIFY_REJECTED: -26,
  VERIFY_ALREADY_IN_CHAIN: -27,
  IN_WARMUP: -28,
  METHOD_DEPRECATED: -32,

  // P2P client errors.
  CLIENT_NOT_CONNECTED: -9,
  CLIENT_IN_INITIAL_DOWNLOAD: -10,
  CLIENT_NODE_ALREADY_ADDED: -23,
  CLIENT_NODE_NOT_ADDED: -24,
  CLIENT_NODE_NOT_CONNECTED: -29,
  CLIENT_INVALID_IP_OR_SUBNET: -30,
  CLIENT_P2P_DISABLED: -31,
  CLIENT_MEMPOOL_DISABLED: -33,
  CLIENT_NODE_CAPACITY_REACHED: -34,

  // Wallet errors.
  WALLET_ERROR: -4,
  WALLET_INSUFFICIENT_FUNDS: -6,
  WALLET_INVALID_LABEL_NAME: -11,
  WALLET_KEYPOOL_RAN_OUT: -12,
  WALLET_UNLOCK_NEEDED: -13,
  WALLET_PASSPHRASE_INCORRECT: -14,
  WALLET_WRONG_ENC_STATE: -15,
  WALLET_ENCRYPTION_FAILED: -16,
  WALLET_ALREADY_UNLOCKED: -17,
  WALLET_NOT_FOUND: -18,
  WALLET_NOT_SPECIFIED: -19,
  WALLET_ALREADY_LOADED: -35,
  WALLET_ALREADY_EXISTS: -36,
} as const;

export type RpcErrorCodeValue = (typeof RpcErrorCode)[keyof typeof RpcErrorCode];

const NAMES = new Map<number, RpcErrorCodeName>(Object.entries(RpcErrorCode).map(([name, code]) => [code, name as RpcErrorCodeName]));

export type RpcErrorCodeName = keyof typeof RpcErrorCode;

/** The name of a code (`-5` is INVALID_ADDRESS_OR_KEY), or undefined for one csd never sends. */
export function rpcErrorCodeName(code: number): RpcErrorCodeName | undefined {
  return NAMES.get(code);
}
