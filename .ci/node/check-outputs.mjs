// Checks, with engines other than ordinate, that the demo's outputs are
// readable and that its report renders:
//
//   node check-outputs.mjs duckdb ORDINATE DEMO_DIR
//     DuckDB (@duckdb/node-api) reads every Parquet file in DEMO_DIR: the
//     row count, column names and types, the sums of the emb_* columns and
//     the `ordinate` footer (parquet_kv_metadata) must match what
//     `ORDINATE inspect --json --checksum` reports.
//
//   node check-outputs.mjs sql ORDINATE REPO WORK
//     For every affine stage (bvp, pca, lda, linear ckpca, linear lsp; the
//     Laplacian lsp writes no model) on bundled data: fit a model, apply it, and run the SELECT
//     of `ORDINATE sql` in DuckDB on the same Parquet input; every
//     coordinate, joined by id, must have apply's bits.
//
//   node check-outputs.mjs browser SCREENSHOT.png DOM.html CHROMIUM.log
//     The headless screenshot of the report is not blank, the DOM after load
//     holds as many figures (inline <svg>, or <img class="figure"> for the
//     PNGs of large embeddings) as the page's ordinate-figures meta tag says,
//     every link of the table of contents (nav#contents) leads to an element
//     id of the DOM, every section of the contents is linked from it, the
//     summary table has a row (tr data-section) for every embedding section
//     (section data-embedding) and none for anything else, and Chromium
//     logged no console error.
//
// Exits non-zero with a message naming the file on the first failure.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

function fail(msg) {
  console.error(`check-outputs: FAIL: ${msg}`);
  process.exit(1);
}

// Arrow type names (ordinate inspect) and the DuckDB types they must read as.
const duckType = {
  float64: 'DOUBLE', float32: 'FLOAT', int64: 'BIGINT', int32: 'INTEGER', int16: 'SMALLINT',
  int8: 'TINYINT', bool: 'BOOLEAN', utf8: 'VARCHAR', large_utf8: 'VARCHAR', binary: 'BLOB',
};

async function checkDuckDB(ordinate, dir) {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.parquet')).sort();
  if (files.length === 0) fail(`no Parquet files in ${dir}`);
  const q = async (sql) => (await conn.runAndReadAll(sql)).getRowObjects();
  for (const name of files) {
    const file = path.join(dir, name);
    const lit = `'${file.replaceAll("'", "''")}'`;
    const ours = JSON.parse(execFileSync(ordinate, ['inspect', '--json', '--checksum', file], { encoding: 'utf8' }));
    const [{ n }] = await q(`SELECT count(*) AS n FROM read_parquet(${lit})`);
    if (BigInt(n) !== BigInt(ours.rows)) fail(`${name}: DuckDB counts ${n} rows, ordinate ${ours.rows}`);
    const cols = await q(`DESCRIBE SELECT * FROM read_parquet(${lit})`);
    if (cols.length !== ours.columns.length) fail(`${name}: DuckDB sees ${cols.length} columns, ordinate ${ours.columns.length}`);
    ours.columns.forEach((c, k) => {
      const d = cols[k];
      if (d.column_name !== c.name) fail(`${name}: column ${k} is ${d.column_name} in DuckDB, ${c.name} in ordinate`);
      const want = duckType[c.type];
      if (want === undefined) {
        if (!c.type.startsWith('fixed_size_list') && !c.type.startsWith('list')) fail(`${name}: no DuckDB type known for ${c.type}`);
      } else if (d.column_type !== want) {
        fail(`${name}: column ${c.name} reads as ${d.column_type} in DuckDB, want ${want} for ${c.type}`);
      }
    });
    for (const [col, sum] of Object.entries(ours.checksums ?? {})) {
      const [{ s, a }] = await q(`SELECT sum("${col}") AS s, sum(abs("${col}")) AS a FROM read_parquet(${lit})`);
      if (Math.abs(Number(s) - sum) > 1e-9 * Math.max(1, Number(a))) fail(`${name}: sum(${col}) is ${s} in DuckDB, ${sum} in ordinate`);
    }
    const kv = await q(`SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata(${lit})`);
    const prov = kv.find((r) => r.key === 'ordinate');
    if (ours.provenance) {
      if (!prov) fail(`${name}: DuckDB finds no 'ordinate' key in the footer`);
      const p = JSON.parse(prov.value);
      if (p.stage !== ours.provenance.stage || p.rows_written !== ours.provenance.rows_written) {
        fail(`${name}: footer stage/rows ${p.stage}/${p.rows_written} in DuckDB, ${ours.provenance.stage}/${ours.provenance.rows_written} in ordinate`);
      }
    }
    console.log(`duckdb ok: ${name} (${ours.rows} rows, ${ours.columns.length} columns${ours.provenance ? ', ' + ours.provenance.stage : ''})`);
  }
  console.log(`duckdb: ${files.length} files read`);
}

// decodePNG returns width, height and RGBA bytes of an 8-bit RGB or RGBA PNG.
function decodePNG(buf) {
  if (buf.toString('latin1', 1, 4) !== 'PNG') fail('screenshot is not a PNG');
  let pos = 8, width, height, colorType, depth;
  const idat = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0); height = data.readUInt32BE(4); depth = data[8]; colorType = data[9];
    } else if (type === 'IDAT') idat.push(data);
    pos += 12 + len;
  }
  if (depth !== 8 || (colorType !== 2 && colorType !== 6)) fail(`screenshot PNG has depth ${depth}, colour type ${colorType}`);
  const bpp = colorType === 6 ? 4 : 3;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const out = Buffer.alloc(width * height * 4);
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? line[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
      let add = 0;
      if (f === 1) add = a; else if (f === 2) add = b; else if (f === 3) add = (a + b) >> 1;
      else if (f === 4) { const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c); add = pa <= pb && pa <= pc ? a : pb <= pc ? b : c; }
      line[i] = (line[i] + add) & 0xff;
    }
    for (let x = 0; x < width; x++) {
      out[(y * width + x) * 4] = line[x * bpp]; out[(y * width + x) * 4 + 1] = line[x * bpp + 1];
      out[(y * width + x) * 4 + 2] = line[x * bpp + 2]; out[(y * width + x) * 4 + 3] = bpp === 4 ? line[x * bpp + 3] : 255;
    }
    prev = line;
  }
  return { width, height, rgba: out };
}

// checkLinks checks the table of contents and the summary table of the
// rendered DOM (see the header) and returns what it counted.
function checkLinks(html) {
  const ids = new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));
  const nav = html.match(/<nav id="contents">([\s\S]*?)<\/nav>/);
  if (!nav) fail('the rendered DOM has no table of contents (nav#contents)');
  const targets = [...nav[1].matchAll(/<a href="([^"]*)"/g)].map((m) => m[1]);
  if (targets.length === 0) fail('the table of contents links nothing');
  for (const t of targets) {
    if (!t.startsWith('#') || !ids.has(decodeURIComponent(t.slice(1)))) fail(`contents link ${t} leads to no element of the page`);
  }
  const linked = new Set(targets.map((t) => decodeURIComponent(t.slice(1))));
  const sections = [...html.matchAll(/<section class="table" id="([^"]+)"[^>]*>/g)];
  for (const [, id] of sections) if (!linked.has(id)) fail(`section ${id} is not in the table of contents`);
  const embeddings = sections.filter((m) => /data-embedding="1"/.test(m[0])).map((m) => m[1]);
  const summary = html.match(/<table class="summary">([\s\S]*?)<\/table>/);
  if (embeddings.length > 0 && !summary) fail(`${embeddings.length} embedding sections but no summary table`);
  const rows = summary ? [...summary[1].matchAll(/<tr data-section="([^"]+)"/g)].map((m) => m[1]) : [];
  for (const id of embeddings) if (!rows.includes(id)) fail(`the summary table has no row for embedding section ${id}`);
  for (const id of rows) if (!embeddings.includes(id)) fail(`the summary table has a row for ${id}, which is no embedding section`);
  return { links: targets.length, sections: sections.length, embeddings: embeddings.length, rows: rows.length };
}

function checkBrowser(shot, dom, log) {
  const { width, height, rgba } = decodePNG(fs.readFileSync(shot));
  let inked = 0;
  const colours = new Set();
  for (let i = 0; i < width * height; i++) {
    const r = rgba[4 * i], g = rgba[4 * i + 1], b = rgba[4 * i + 2];
    if (r < 240 || g < 240 || b < 240) inked++;
    if (colours.size < 5000) colours.add((r << 16) | (g << 8) | b);
  }
  const share = inked / (width * height);
  if (share < 0.02 || colours.size < 50) fail(`screenshot ${width}×${height} looks blank: ${(100 * share).toFixed(2)}% inked, ${colours.size} colours`);
  const html = fs.readFileSync(dom, 'utf8');
  const meta = html.match(/name="ordinate-figures" content="(\d+)"/);
  if (!meta) fail('the rendered DOM has no ordinate-figures meta tag: did the page load?');
  const svgs = (html.match(/<svg[\s>]/g) ?? []).length;
  const pngs = (html.match(/<img class="figure"/g) ?? []).length;
  if (svgs + pngs !== Number(meta[1]) || svgs + pngs === 0) fail(`the rendered DOM holds ${svgs} <svg> and ${pngs} PNG figures, the page says ${meta[1]}`);
  const { links, sections, embeddings, rows } = checkLinks(html);
  const errors = fs.readFileSync(log, "utf8").split("\n").filter((l) => /:CONSOLE[:(]|Uncaught/.test(l));
  if (errors.length > 0) fail(`Chromium logged console messages:\n${errors.join('\n')}`);
  console.log(`browser ok: ${svgs + pngs} figures (${pngs} PNG), ${links} contents links to ${sections} sections, ${rows} summary rows for ${embeddings} embeddings, screenshot ${width}×${height}, ${(100 * share).toFixed(1)}% inked, ${colours.size}${colours.size >= 5000 ? '+' : ''} colours, no console errors`);
}

// bits returns the IEEE bits of a double as a BigInt (so that −0 ≠ 0).
function bits(x) {
  const v = new DataView(new ArrayBuffer(8));
  v.setFloat64(0, x);
  return v.getBigUint64(0);
}

async function checkSQL(ordinate, repo, work) {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const q = async (sql) => (await conn.runAndReadAll(sql)).getRowObjects();
  const lit = (p) => `'${p.replaceAll("'", "''")}'`;
  // The bundled CSVs with an id column, as Parquet.
  const inputs = {};
  for (const [name, csv] of [['thyroid', 'testdata/ordinal/newthyroid.csv'], ['control', 'testdata/ckpca/thyroid-control.csv']]) {
    inputs[name] = path.join(work, `${name}.parquet`);
    await q(`COPY (SELECT row_number() OVER () - 1 AS id, * FROM read_csv(${lit(path.join(repo, csv))})) TO ${lit(inputs[name])} (FORMAT parquet)`);
  }
  const cases = [
    ['bvp', 'thyroid', []], ['pca', 'thyroid', []], ['lda', 'thyroid', []],
    ['ckpca', 'control', ['--control', 'cx,cy', '--scale', 'auto']],
    ['lsp', 'control', ['--control', 'cx,cy', '--variant', 'linear']],
  ];
  for (const [stage, input, extra] of cases) {
    const name = [stage, ...extra.filter((a) => !a.startsWith('--') && !a.includes(','))].join('-');
    const model = path.join(work, `${name}.model.parquet`);
    const applied = path.join(work, `${name}.applied.parquet`);
    const opts = { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] };
    execFileSync(ordinate, [stage, '--in', inputs[input], '--id', 'id', '--label', 'label', ...extra, '--quiet',
      '--out', path.join(work, `${name}.parquet`), '--model-out', model], opts);
    execFileSync(ordinate, ['apply', '--model', model, '--in', inputs[input], '--id', 'id', '--out', applied, '--quiet'], opts);
    const select = execFileSync(ordinate, ['sql', '--model', model, '--table', `read_parquet(${lit(inputs[input])})`, '--id', 'id'], opts);
    const got = await q(`SELECT * FROM (${select.trim().replace(/;$/, '')}) ORDER BY id`);
    const want = await q(`SELECT * FROM read_parquet(${lit(applied)}) ORDER BY id`);
    if (got.length !== want.length || got.length === 0) fail(`${name}: the SQL gives ${got.length} rows, apply ${want.length}`);
    const cols = Object.keys(want[0]).filter((c) => c.startsWith('emb_'));
    if (cols.length === 0 || cols.some((c) => !(c in got[0]))) fail(`${name}: apply writes ${cols}, the SQL ${Object.keys(got[0])}`);
    let checked = 0;
    got.forEach((g, i) => {
      const w = want[i];
      if (String(g.id) !== String(w.id)) fail(`${name}: row ${i} has id ${g.id} in the SQL, ${w.id} in apply`);
      for (const c of cols) {
        if (bits(g[c]) !== bits(w[c])) fail(`${name}: id ${g.id}, ${c}: DuckDB computes ${g[c]}, apply ${w[c]}`);
        checked++;
      }
    });
    console.log(`sql ${name}: ${got.length} rows, ${checked} coordinates with apply's bits in DuckDB`);
  }
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'duckdb') await checkDuckDB(args[0], args[1]);
else if (mode === 'sql') await checkSQL(args[0], args[1], args[2]);
else if (mode === 'browser') checkBrowser(args[0], args[1], args[2]);
else fail('usage: check-outputs.mjs duckdb ORDINATE DIR | sql ORDINATE REPO WORK | browser SHOT DOM LOG');
