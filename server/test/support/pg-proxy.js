// A TCP proxy between the service and PostgreSQL, on 127.0.0.1, that can make PostgreSQL
// unreachable for a while, or disturb one transaction at its COMMIT: cut the connection before forwarding the COMMIT (PostgreSQL
// rolls the transaction back), cut it once PostgreSQL has answered (the transaction is
// committed, but the service never hears so), or hold the COMMIT back for a while. A rule
// may name a marker: it then applies only to a transaction whose statements contained it
// (e.g. a customer id). Everything else passes through unchanged.
import net from 'node:net';

// A simple-protocol query message: 'Q', int32 length (4 + "COMMIT\0" = 11), the text.
const COMMIT = Buffer.from('Q\0\0\0\x0bCOMMIT\0', 'latin1');

/**
 * @param {number} targetPort PostgreSQL's port on 127.0.0.1
 */
export async function startPgProxy(targetPort) {
  const rules = []; // { action: 'before' | 'after' | 'hold', marker: string | null, ms: number }
  const sockets = new Set();
  let down = false;
  const proxy = {
    port: 0,
    /** How many rules have fired. */
    fired: 0,
    /** At the next COMMIT (of a transaction that contained `marker`): 'before' or 'after'. */
    cutAtNextCommit(when, marker = null) {
      rules.push({ action: when, marker, ms: 0 });
    },
    /** Holds the next COMMIT (of a transaction that contained `marker`) back for `ms`. */
    holdNextCommit(ms, marker = null) {
      rules.push({ action: 'hold', marker, ms });
    },
    /** While down, PostgreSQL is unreachable: every connection is cut, new ones at once. */
    setDown(value) {
      down = value;
      if (down) for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server = net.createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, '127.0.0.1');
    let seen = ''; // what the client sent since its last COMMIT
    let swallowing = false; // a COMMIT was forwarded under 'after': drop its answer, then cut
    let queue = Promise.resolve(); // client → server chunks, in order (a held COMMIT delays what follows)
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', cut);
    }
    client.on('data', (chunk) => {
      seen += chunk.toString('latin1');
      let rule;
      if (chunk.includes(COMMIT)) {
        const i = rules.findIndex((r) => r.marker === null || seen.includes(r.marker));
        if (i >= 0) {
          rule = rules.splice(i, 1)[0];
          proxy.fired++;
        }
        seen = '';
      }
      queue = queue.then(async () => {
        if (rule?.action === 'before') return cut();
        if (rule?.action === 'hold') await new Promise((resolve) => setTimeout(resolve, rule.ms));
        if (rule?.action === 'after') swallowing = true;
        if (!upstream.destroyed) upstream.write(chunk);
      });
    });
    upstream.on('data', (chunk) => {
      if (swallowing) return cut();
      client.write(chunk);
    });
    client.on('end', cut);
    upstream.on('end', cut);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.port = server.address().port;
  return proxy;
}
