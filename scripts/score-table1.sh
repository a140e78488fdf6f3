#!/usr/bin/env bash
# Table 1 of Le & Lauw (IJCAI 2019), "multiple maps vs single map": SCORE on
# three attributes of each data set (Zoo: type, legs, predator; HouseVote:
# immigration, education-spending, crime), fitted on all their triplets (Zoo
# ordered pairs, HouseVote unordered) as multiple maps and as one pooled map,
# scored by triplet preservation accuracy (Eq. 10) on the same triplets.
# The paper reports single 0.82 / 0.70, multiple 0.98 / 0.89 (Zoo / HouseVote).
#
# usage: scripts/score-table1.sh [SEED]    (from the repository root)
set -euo pipefail
seed=${1:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin="$work/ordinate"
go build -o "$bin" ./cmd/ordinate
acc() { awk -F, '$1=="triplet_accuracy" && $3=="all" {printf "%.3f", $4}' "$1"; }
printf '| data | single map | multiple maps |\n|---|---|---|\n'
"$bin" triplets --in testdata/zoo/zoo.csv --aspects type,legs,predator --out "$work/zoo.parquet" --quiet
"$bin" triplets --in testdata/house-votes-84/house-votes-84-complete.csv --id row_id \
  --aspects immigration,education-spending,crime --pairs unordered --out "$work/hv.parquet" --quiet
for set in zoo hv; do
  "$bin" score --in "$work/$set.parquet" --single-map --seed "$seed" --out "$work/s.parquet" --quiet
  "$bin" evaluate --embedding "$work/s.parquet" --triplets "$work/$set.parquet" --out "$work/s.csv" --quiet
  "$bin" score --in "$work/$set.parquet" --seed "$seed" --out "$work/m.parquet" --quiet
  "$bin" evaluate --embedding "$work/m.parquet" --triplets "$work/$set.parquet" --out "$work/m.csv" --quiet
  printf '| %s | %s | %s |\n' "$set" "$(acc "$work/s.csv")" "$(acc "$work/m.csv")"
done
