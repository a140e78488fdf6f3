#!/usr/bin/env bash
# Placement speed: place 1,000,000 rows (D = 50) into a 20,000-row t-SNE map, with wall
# time, rows/s and peak memory; 100,000 rows as well, to show that peak memory does not grow
# with the rows placed; 100,000 rows into a 5,000-row ClassNeRV (Barnes–Hut) map; and
# openTSNE's transform of 20,000 rows into its own 20,000-row map, side by side.
# Usage: scripts/placement/speed.sh [WORKDIR]   (needs Go; Python with numpy, pyarrow, openTSNE
# in $PYTHON, default python3). Takes about 20 minutes on 2 cores, most of it fitting the maps
# and openTSNE.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-$(mktemp -d)}
py=${PYTHON:-python3}
mkdir -p "$work"
go build -C "$root" -o "$work/ordinate" ./cmd/ordinate
ord="$work/ordinate"
[ -f "$work/ref.parquet" ] || "$py" "$here/gen.py" 20000 "$work/ref.parquet" 1 0
[ -f "$work/new.parquet" ] || "$py" "$here/gen.py" 1000000 "$work/new.parquet" 2 10000000
[ -f "$work/new100k.parquet" ] || "$py" "$here/gen.py" 100000 "$work/new100k.parquet" 3 20000000
[ -f "$work/new20k.parquet" ] || "$py" "$here/gen.py" 20000 "$work/new20k.parquet" 4 30000000
[ -f "$work/ref5k.parquet" ] || "$py" "$here/gen.py" 5000 "$work/ref5k.parquet" 6 50000000
[ -f "$work/new1.parquet" ] || "$py" "$here/gen.py" 1 "$work/new1.parquet" 5 40000000
measure() { # label, command…
  local label=$1; shift
  /usr/bin/time -f "$label: %e s wall, %U s user, peak %M KB" "$@" 2>&1 >/dev/null | grep "^$label:"
}
[ -f "$work/tsne.model.parquet" ] || measure "fit tsne bh 20k" "$ord" tsne --quiet --in "$work/ref.parquet" --id id --label label --method bh --out "$work/tsne.parquet" --model-out "$work/tsne.model.parquet"
[ -f "$work/nerv.model.parquet" ] || measure "fit nerv bh 5k" "$ord" nerv --quiet --in "$work/ref5k.parquet" --id id --label label --method bh --out "$work/nerv.parquet" --model-out "$work/nerv.model.parquet"
for m in tsne nerv; do
  for rows in 100k ""; do
    in="$work/new${rows}.parquet"
    n=$([ -z "$rows" ] && echo 1000000 || echo 100000)
    [ "$m" = nerv ] && [ -z "$rows" ] && continue # NeRV: 100k rows (about 1 ms per row)
    measure "apply $m ${n} rows" "$ord" apply --quiet --model "$work/$m.model.parquet" --in "$in" --id id --out "$work/placed-$m-$n.parquet"
  done
  measure "apply $m 1 row (model load, index and field build)" "$ord" apply --quiet --model "$work/$m.model.parquet" --in "$work/new1.parquet" --id id --out "$work/placed-$m-1.parquet"
done
"$py" - "$work" <<'PY'
import sys, time
import numpy as np, pyarrow.parquet as pq
from openTSNE import TSNE
w = sys.argv[1]
def load(p):
    t = pq.read_table(p); return np.column_stack([t[f"f{j}"].to_numpy() for j in range(50)])
ref, new = load(f"{w}/ref.parquet"), load(f"{w}/new20k.parquet")
t0 = time.time(); emb = TSNE(perplexity=30, n_jobs=2, random_state=1).fit(ref); t1 = time.time()
emb.transform(new); t2 = time.time()
print(f"openTSNE: fit 20k {t1-t0:.1f} s; transform 20,000 rows {t2-t1:.1f} s wall ({20000/(t2-t1):.0f} rows/s)")
PY
"$ord" apply --quiet --model "$work/tsne.model.parquet" --in "$work/new20k.parquet" --id id --out "$work/placed20k.parquet" 2>/dev/null
measure "ordinate apply tsne 20,000 rows" "$ord" apply --quiet --model "$work/tsne.model.parquet" --in "$work/new20k.parquet" --id id --out "$work/placed20k.parquet"
