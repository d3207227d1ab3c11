// The examples of the reference (/openapi.json and /docs), in the values a partner sees from the demo
// data of `npm start`: the Toko Nusantara tenant, its warehouses in Jakarta (location 1) and
// Surabaya (location 2) and its products 1 to 5. Each area's file holds the examples of its
// schemas, each typed by the schema it illustrates, so the compiler refuses a dropped or renamed
// field; the gateway's reference check validates every example again against the published document.
import type { z } from 'zod';

/** An example of what schema `S` accepts: its input type. */
export type Example<S extends z.ZodType> = z.input<S>;

/** The demo tenant's id. */
export const EXAMPLE_TENANT_ID = '0b6f1c52-3a5e-4d8b-9a51-2f0c7e9d4a11';
/** The tenant the authorize example connects. */
export const EXAMPLE_INVITED_TENANT_ID = '7d2e4f10-8c3b-4a6e-b1d5-93f0a2c6e845';
/** When the demo documents were created, and a later moment at which they were acted on. */
export const EXAMPLE_CREATED_AT = '2026-11-22T09:30:12.481Z';
export const EXAMPLE_LATER_AT = '2026-11-22T10:04:55.120Z';
