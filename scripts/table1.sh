#!/usr/bin/env bash
# Reproduces the clip rows of Table 1 of Schulz & Hammer ("Fisher t-SNE"):
# leave-one-out 1-NN error (%) on aural_sonar, protein and voting of
#   original      the clipped kernel distances,
#   t-SNE         t-SNE of those distances (10 seeds, random initialisation:
#                 mean ± sd; the default PCA/MDS start does not depend on the seed),
#   Fisher t-SNE  t-SNE of the Fisher distances (10 seeds), with the default
#                 settings and with --exclude-endpoints.
# The paper reports original 17 / 10 / 6, t-SNE 15 / 8 / 7, Fisher t-SNE 9 / 3 / 4.
#
# usage: scripts/table1.sh [SEEDS]     (run from the repository root)
set -euo pipefail
seeds=${1:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin="$work/ordinate"
go build -o "$bin" ./cmd/ordinate

# nn_error of a subset from a metrics CSV written by ordinate evaluate, in %.
nn() { awk -F, -v want="$2" '$1=="nn_error" && $3==want {printf "%.1f", 100*$4}' "$1"; }
# mean ± sd of the numbers on stdin.
stats() { awk '{s+=$1; q+=$1*$1; n++} END {m=s/n; v=q/n-m*m; if (v<0) v=0; printf "%.1f ± %.1f", m, sqrt(v)}'; }

printf '| data | original | t-SNE | Fisher t-SNE | Fisher t-SNE, --exclude-endpoints |\n|---|---|---|---|---|\n'
for set in aural_sonar protein voting; do
  sim=testdata/similarity/$set.parquet
  q=(--quiet)
  "$bin" fisher --similarity "$sim" --id id --label label --metric kernel --out "$work/kern.parquet" "${q[@]}"
  "$bin" fisher --similarity "$sim" --id id --label label --out "$work/fisher.parquet" "${q[@]}"
  "$bin" fisher --similarity "$sim" --id id --label label --exclude-endpoints --out "$work/fisherx.parquet" "${q[@]}"
  "$bin" evaluate --distances "$work/kern.parquet" --in "$sim" --id id --label label --k 1 --out "$work/m.csv" "${q[@]}"
  orig=$(nn "$work/m.csv" distances)
  cols=()
  for d in kern fisher fisherx; do
    for s in $(seq 1 "$seeds"); do
      "$bin" tsne --distances "$work/$d.parquet" --labels "$sim" --id id --label label --init random --seed "$s" --out "$work/e.parquet" "${q[@]}"
      "$bin" evaluate --embedding "$work/e.parquet" --in "$sim" --id id --label label --features 's_*' --k 1 --out "$work/m.csv" "${q[@]}"
      nn "$work/m.csv" embedding; echo
    done > "$work/$d.txt"
    cols+=("$(stats < "$work/$d.txt")")
  done
  printf '| %s | %s | %s | %s | %s |\n' "$set" "$orig" "${cols[0]}" "${cols[1]}" "${cols[2]}"
done
