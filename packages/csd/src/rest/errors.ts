/**
 * REST failures. Each is answered with its HTTP status and, as the interface document says, a
 * JSON body with one member: `{"error": "<text>"}`. docs/rest.md lists every status and text.
 */
export class RestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string | number>> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string): RestError => new RestError(400, message);
export const notFound = (message: string): RestError => new RestError(404, message);
