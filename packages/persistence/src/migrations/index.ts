// Every migration, listed explicitly in order: nothing is discovered by scanning a folder.
import type { ProductMigration } from './migration-context.js';
import * as m001 from './001-initial-schema.js';
import * as m002 from './002-area-search.js';
import * as m003 from './003-crash-safe-idempotency.js';
import * as m004 from './004-webhook-attempt-body.js';
import * as m005 from './005-installation-grants.js';
import * as m006 from './006-adjustment-item-type.js';
import * as m007 from './007-list-counts.js';
import * as m008 from './008-reservations.js';
import * as m009 from './009-webhook-endpoint-active.js';
import * as m010 from './010-ledger-bucket-index.js';
import * as m011 from './011-lots.js';
import * as m012 from './012-lot-notice-indexes.js';
import * as m013 from './013-newest-ledger-ids.js';
import * as m014 from './014-list-count-triggers.js';

export const MIGRATIONS: Readonly<Record<string, ProductMigration>> = {
  '001-initial-schema': m001,
  '002-area-search': m002,
  '003-crash-safe-idempotency': m003,
  '004-webhook-attempt-body': m004,
  '005-installation-grants': m005,
  '006-adjustment-item-type': m006,
  '007-list-counts': m007,
  '008-reservations': m008,
  '009-webhook-endpoint-active': m009,
  '010-ledger-bucket-index': m010,
  '011-lots': m011,
  '012-lot-notice-indexes': m012,
  '013-newest-ledger-ids': m013,
  '014-list-count-triggers': m014,
};
