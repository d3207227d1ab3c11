// A bare Koa route that answers GET /api/partner/v1/areas by running the search straight on the
// driver (no auth, rate limit, validation schemas or repository): the ceiling the gateway's area
// search is compared with in the same run. Started as its own process by areas-bench.ts.
import { randomUUID } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import Koa from 'koa';
import pg from 'pg';
import { type RawDriver, postgresDriver, rawSearchAreas, sqliteDriver } from './raw-area-search.js';

const port = Number(process.env.PORT);
const url = process.env.DATABASE_URL ?? '';
const driver: RawDriver = /^postgres/.test(url) ? postgresDriver(new pg.Pool({ connectionString: url, max: 10 })) : sqliteDriver(new BetterSqlite3(url, { readonly: true }));

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.path === '/healthz') {
    ctx.body = { status: 'ok' };
    return;
  }
  const q = ctx.query as Record<string, string | undefined>;
  const page = Number(q.page ?? 1);
  const perPage = Number(q.per_page ?? 20);
  const searchBy = q.search_by as 'province' | 'city' | 'district' | 'subdistrict' | undefined;
  const { rows, total } = await rawSearchAreas(driver, { page, perPage, ...(searchBy ? { searchBy } : {}), ...(q.search_value ? { searchValue: q.search_value } : {}) });
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const from = rows.length > 0 ? (page - 1) * perPage + 1 : null;
  ctx.body = {
    status: 200,
    message: 'Ok',
    data: {
      areas: rows.map(({ created_at: _c, updated_at: _u, ...area }) => area),
      pagination: { current_page: page, per_page: perPage, total, last_page: lastPage, from, to: from === null ? null : from + rows.length - 1, has_more_pages: page < lastPage },
    },
    errors: null,
    request_id: randomUUID(),
  };
});
app.listen(port, '127.0.0.1');
