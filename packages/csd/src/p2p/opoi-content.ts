/**
 * Where published OPoI content goes when it arrives from a peer. The OPoI store implements it:
 * `accept` checks the content against the response hash revealed for `requestId` and keeps it,
 * answering false when it does not match (or the request is unknown). The network relays only
 * content that was accepted, so a node never passes on what it could not check.
 */
export interface OpoiContentStore {
  accept(requestId: Uint8Array, content: Uint8Array): boolean;
}
