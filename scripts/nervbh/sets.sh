#!/usr/bin/env bash
# NeRV at any size (BENCHMARKS.md): ClassNeRV (ordinate nerv, default options)
# and t-SNE (ordinate tsne, default options) of the data sets of sets.py, wall
# time and peak memory of each run (GNU time), then T(10), C(10) and 10-NN
# class accuracy on a fixed 5,000-row sample (score.py).
#
#   python scripts/nervbh/sets.py DIR 100000 && go run ./scripts/nervbh -n 100000 -write DIR/four.parquet
#   scripts/nervbh/sets.sh DIR [ordinate binary] [set …]
#
# METHODS="nerv" runs only the NeRV maps (the t-SNE maps of an earlier run are
# scored again). Needs GNU time and python with numpy, pyarrow and scikit-learn (PYTHON).
set -euo pipefail
dir=$1
ord=${2:-ordinate}
shift $(( $# < 2 ? $# : 2 ))
sets=${*:-overlap six four flights diamonds}
py=${PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)
for s in $sets; do
  f=$dir/$s.parquet
  if [ "$s" = four ]; then sel=(--features x,y,z --label class); score=(--label class --features x,y,z)
  else sel=(--label label); score=(--label label --features all); fi
  for m in ${METHODS:-nerv tsne}; do
    /usr/bin/time -f "$s $m: %e s, peak %M KB" "$ord" "$m" --in "$f" "${sel[@]}" --out "$dir/$s.$m.parquet" --quiet 2>&1 | tail -1
  done
  "$py" "$here/score.py" "${score[@]}" "$f" "$dir/$s.nerv.parquet" "$dir/$s.tsne.parquet"
done
