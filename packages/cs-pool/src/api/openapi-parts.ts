/** What the pool's two OpenAPI parts (openapi.ts, openapi-miningcore.ts) both describe their routes with. */
export const json = (description: string, schema: object) => ({ description, content: { 'application/json': { schema } } });
export const errorResponse = (description: string) =>
  ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }) as const;
export const address = { name: 'address', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9]{1,100}$' } } as const;
/** miningcore's paging parameters. */
export const paging = [
  { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 0 }, description: 'page number from 0 (default 0)' },
  {
    name: 'pageSize',
    in: 'query',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 1000 },
    description: 'rows per page (default 15)',
  },
] as const;
