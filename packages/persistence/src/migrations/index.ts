// Every migration, listed explicitly in order: nothing is discovered by scanning a folder.
import type { ProductMigration } from './migration-context.js';
import * as m001 from './001-initial-schema.js';
import * as m002 from './002-area-search.js';

export const MIGRATIONS: Readonly<Record<string, ProductMigration>> = {
  '001-initial-schema': m001,
  '002-area-search': m002,
};
