// A bare Koa server returning fixed bytes on one route: the ceiling a Koa route can reach on this
// machine, to compare the gateway against in the same run. Started as its own process.
import Koa from 'koa';

const port = Number(process.env.PORT);
const body = Buffer.from(process.env.BODY_BASE64 ?? '', 'base64');
const app = new Koa();
app.use((ctx) => {
  if (ctx.path === '/healthz') {
    ctx.body = { status: 'ok' };
    return;
  }
  ctx.type = 'application/json';
  ctx.body = body;
});
app.listen(port, '127.0.0.1');
