// Times ordinate's Parquet reading and `ordinate apply` against DuckDB on
// one table, in one run, and prints a Markdown table.
//
//   cd .ci/node && npm install && cd ../..
//   node scripts/parquet/bench.mjs [ROWS]        (default 10,000,000)
//
// It builds ordinate and the Go helper (scripts/parquet), writes ROWS × 32
// float64 columns (the values of the huge benchmarks) with ordinate's
// writer to $TMPDIR, with the 2-D affine model of BenchmarkApplyHuge, then
// times, each once (the machine is shared; run it when it is quiet):
//   - DuckDB (2 threads) summing all 32 columns of the file;
//   - ordinate reading all 32 columns through arrowio.Open (2 threads);
//   - `ordinate apply --threads 2` of the model, Parquet to Parquet;
//   - DuckDB's COPY of the same affine map (with the row number, as apply
//     writes it) to Parquet.
// It checks that both outputs agree (row count, sums of the two embedding
// columns) and deletes what it wrote.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(repo, '.ci/node/package.json'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));

const rows = Number(process.argv[2] ?? 10_000_000);
const tmp = fs.mkdtempSync(path.join(process.env.TMPDIR ?? os.tmpdir(), 'ordinate-pqbench-'));
const table = path.join(tmp, `in-${rows}-32.parquet`);
const model = path.join(tmp, 'model.parquet');
const coefsPath = path.join(tmp, 'coefs.json');
const ordinate = path.join(tmp, 'ordinate');
const helper = path.join(tmp, 'pqhelper');

const run = (cmd, args) => execFileSync(cmd, args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
const time = async (fn) => { const t0 = process.hrtime.bigint(); const r = await fn(); return [Number(process.hrtime.bigint() - t0) / 1e9, r]; };
const lit = (p) => `'${p.replaceAll("'", "''")}'`;

try {
  run('go', ['build', '-o', ordinate, './cmd/ordinate']);
  run('go', ['build', '-o', helper, './scripts/parquet']);
  const [genSec] = await time(() => run(helper, ['gen', String(rows), table, model, coefsPath]));
  const size = fs.statSync(table).size;
  const coefs = JSON.parse(fs.readFileSync(coefsPath, 'utf8'));
  const load0 = os.loadavg()[0];

  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  await conn.run('SET threads=2');
  const q = async (sql) => (await conn.runAndReadAll(sql)).getRowObjects();
  const cols = [...Array(32).keys()].map((j) => `x${j}`);

  const [duckRead] = await time(() => q(`SELECT ${cols.map((c) => `sum(${c})`).join(', ')} FROM read_parquet(${lit(table)})`));
  const [, readOut] = await time(() => run(helper, ['read', table, '2']));
  const [n, ordRead] = readOut.trim().split(' ').map(Number); // the helper's own timing, without go's start-up
  if (n !== rows) throw new Error(`ordinate read ${n} rows, want ${rows}`);

  const ordOut = path.join(tmp, 'apply-ordinate.parquet');
  const [ordApply] = await time(() => run(ordinate, ['apply', '--model', model, '--in', table, '--out', ordOut, '--threads', '2', '--quiet']));

  const duckOut = path.join(tmp, 'apply-duckdb.parquet');
  const emb = (k) => `${cols.map((c, j) => `${c} * ${coefs.w[k][j]}`).join(' + ')} - ${coefs.b[k]}`;
  const [duckApply] = await time(() => q(`COPY (SELECT file_row_number AS "row", ${emb(0)} AS emb_0, ${emb(1)} AS emb_1 FROM read_parquet(${lit(table)}, file_row_number = true)) TO ${lit(duckOut)} (FORMAT parquet)`));
  const load1 = os.loadavg()[0];

  // Both outputs hold the same rows.
  const sums = async (f) => (await q(`SELECT count(*) AS n, sum("row") AS r, sum(emb_0) AS a, sum(emb_1) AS b, sum(abs(emb_0)) + sum(abs(emb_1)) AS s FROM read_parquet(${lit(f)})`))[0];
  const [so, sd] = [await sums(ordOut), await sums(duckOut)];
  for (const k of ['n', 'r']) if (BigInt(so[k]) !== BigInt(sd[k])) throw new Error(`apply outputs differ: ${k} ${so[k]} against ${sd[k]}`);
  for (const k of ['a', 'b']) if (Math.abs(Number(so[k]) - Number(sd[k])) > 1e-9 * Number(so.s)) throw new Error(`apply outputs differ: sum ${k} ${so[k]} against ${sd[k]}`);

  const mib = (f) => (fs.statSync(f).size / 2 ** 20).toFixed(1);
  console.log(`${rows.toLocaleString('en')} rows × 32 float64, ${mib(table)} MiB zstd (written by ordinate in ${genSec.toFixed(1)} s); load ${load0.toFixed(2)} before, ${load1.toFixed(2)} after; ${os.cpus().length} CPUs\n`);
  console.log('| what | DuckDB (2 threads) | ordinate (2 threads) | ordinate / DuckDB |');
  console.log('|---|---|---|---|');
  console.log(`| read all 32 columns | ${duckRead.toFixed(2)} s | ${ordRead.toFixed(2)} s | ${(ordRead / duckRead).toFixed(2)} |`);
  console.log(`| 2-D affine map, Parquet to Parquet (COPY / apply) | ${duckApply.toFixed(2)} s (${mib(duckOut)} MiB) | ${ordApply.toFixed(2)} s (${mib(ordOut)} MiB) | ${(ordApply / duckApply).toFixed(2)} |`);
  void size;
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
