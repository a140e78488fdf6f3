package affine

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms"
)

// sqlModel is a 2×2 model with hand-picked values: w = Axes ⊘ Scale and
// b = (Mean ⊘ Scale + Origin)·Axes are exact in binary.
func sqlModel(list string) *Model {
	s := &transforms.Scaling{Names: []string{"x", `we"ird`}, Cols: []int{0, 1}, Mean: []float64{1, 0}, Scale: []float64{2, 1}}
	axes := mat.NewDense(2, 2, []float64{
		1, -0.5,
		0.25, 3,
	})
	return New("test", s, list, true, []float64{0, 1}, axes, nil)
}

// TestSQLGolden pins the text of each dialect for a small model: w =
// [[0.5, −0.25], [0.25, 3]], b = [0.5·1 + 1·0.25, 0.5·(−0.5) + 1·3] = [0.75, 2.75].
func TestSQLGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    Dialect
		list string
		want string
	}{
		{"duckdb", DuckDB, "", `SELECT
  "id",
  -7.5e-01 + CAST("x" AS DOUBLE) * 5e-01 + CAST("we""ird" AS DOUBLE) * 2.5e-01 AS "emb_0",
  -2.75e+00 + CAST("x" AS DOUBLE) * -2.5e-01 + CAST("we""ird" AS DOUBLE) * 3e+00 AS "emb_1",
  "label"
FROM read_parquet('in.parquet')`},
		{"spark", Spark, "", "SELECT\n  `id`,\n" +
			"  -7.5e-01 + CAST(`x` AS DOUBLE) * 5e-01 + CAST(`we\"ird` AS DOUBLE) * 2.5e-01 AS `emb_0`,\n" +
			"  -2.75e+00 + CAST(`x` AS DOUBLE) * -2.5e-01 + CAST(`we\"ird` AS DOUBLE) * 3e+00 AS `emb_1`,\n" +
			"  `label`\nFROM read_parquet('in.parquet')"},
		{"postgres", Postgres, "", `SELECT
  "id",
  CAST('-7.5e-01' AS DOUBLE PRECISION) + CAST("x" AS DOUBLE PRECISION) * CAST('5e-01' AS DOUBLE PRECISION) + CAST("we""ird" AS DOUBLE PRECISION) * CAST('2.5e-01' AS DOUBLE PRECISION) AS "emb_0",
  CAST('-2.75e+00' AS DOUBLE PRECISION) + CAST("x" AS DOUBLE PRECISION) * CAST('-2.5e-01' AS DOUBLE PRECISION) + CAST("we""ird" AS DOUBLE PRECISION) * CAST('3e+00' AS DOUBLE PRECISION) AS "emb_1",
  "label"
FROM read_parquet('in.parquet')`},
		{"duckdb list", DuckDB, "feats", `SELECT
  "id",
  -7.5e-01 + CAST("feats"[1] AS DOUBLE) * 5e-01 + CAST("feats"[2] AS DOUBLE) * 2.5e-01 AS "emb_0",
  -2.75e+00 + CAST("feats"[1] AS DOUBLE) * -2.5e-01 + CAST("feats"[2] AS DOUBLE) * 3e+00 AS "emb_1",
  "label"
FROM read_parquet('in.parquet')`},
		{"spark list", Spark, "feats", "SELECT\n  `id`,\n" +
			"  -7.5e-01 + CAST(`feats`[0] AS DOUBLE) * 5e-01 + CAST(`feats`[1] AS DOUBLE) * 2.5e-01 AS `emb_0`,\n" +
			"  -2.75e+00 + CAST(`feats`[0] AS DOUBLE) * -2.5e-01 + CAST(`feats`[1] AS DOUBLE) * 3e+00 AS `emb_1`,\n" +
			"  `label`\nFROM read_parquet('in.parquet')"},
	} {
		got, err := sqlModel(tc.list).SQL(Query{Dialect: tc.d, Table: "read_parquet('in.parquet')", ID: "id", Keep: []string{"label"}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

// term is one "CAST(col AS …) * w" of an emitted expression.
var term = regexp.MustCompile(`^CAST\((.+) AS [A-Z ]+\) \* (.+)$`)

// constant reads an emitted literal back: plain, or CAST('…' AS …).
func constant(t *testing.T, s string) float64 {
	t.Helper()
	if m := regexp.MustCompile(`^CAST\('(.+)' AS DOUBLE PRECISION\)$`).FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("literal %q: %v", s, err)
	}
	return v
}

// TestExpressionsEvaluate reads the expressions of random models back
// (columns, constants, order) and evaluates them left to right as SQL's +
// associates: on random rows they give Transform's bits in every dialect.
// The constants must read back exactly and the terms come in Transform's
// order for that to hold.
func TestExpressionsEvaluate(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(38, 1))
	for _, tc := range []struct {
		name string
		D, d int
	}{{"2d", 5, 2}, {"1d", 3, 1}, {"3d", 7, 3}, {"one feature", 1, 2}} {
		s := &transforms.Scaling{}
		origin := make([]float64, tc.D)
		for f := range tc.D {
			s.Names = append(s.Names, "f"+strconv.Itoa(f))
			s.Cols = append(s.Cols, f)
			s.Mean = append(s.Mean, rng.NormFloat64()*3)
			s.Scale = append(s.Scale, 0.1+rng.Float64())
			origin[f] = rng.NormFloat64()
		}
		axes := mat.NewDense(tc.D, tc.d, nil)
		for f := range tc.D {
			for j := range tc.d {
				axes.Set(f, j, rng.NormFloat64()*math.Exp2(float64(rng.IntN(40)-20)))
			}
		}
		m := New("test", s, "", true, origin, axes, nil)
		const n = 50
		x := make([]float64, n*tc.D)
		for i := range x {
			x[i] = rng.NormFloat64() * 100
		}
		want := make([]float64, n*tc.d)
		if err := m.Transform(ctx, want, x, n, 1); err != nil {
			t.Fatal(err)
		}
		for _, d := range Dialects {
			exprs, err := m.Expressions(d)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, d, err)
			}
			for j, e := range exprs {
				parts := strings.Split(e, " + ")
				if len(parts) != tc.D+1 {
					t.Fatalf("%s %s: coordinate %d has %d terms, want %d: %s", tc.name, d, j, len(parts), tc.D+1, e)
				}
				bias := constant(t, parts[0])
				cols := make([]int, tc.D)
				ws := make([]float64, tc.D)
				for f, p := range parts[1:] {
					mt := term.FindStringSubmatch(p)
					if mt == nil {
						t.Fatalf("%s %s: term %q", tc.name, d, p)
					}
					name := strings.Trim(mt[1], "\"`")
					c, err := strconv.Atoi(strings.TrimPrefix(name, "f"))
					if err != nil {
						t.Fatalf("%s %s: column %q", tc.name, d, mt[1])
					}
					cols[f], ws[f] = c, constant(t, mt[2])
				}
				for i := range n {
					v := bias
					for f := range tc.D {
						v += x[i*tc.D+cols[f]] * ws[f]
					}
					if g := want[i*tc.d+j]; math.Float64bits(v) != math.Float64bits(g) {
						t.Fatalf("%s %s: row %d coordinate %d: the SQL gives %v, Transform %v", tc.name, d, i, j, v, g)
					}
				}
			}
		}
	}
}

// TestSQLErrors: what a dialect cannot say is an option error naming the
// way out.
func TestSQLErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *Model
		q    Query
		want string
	}{
		{"unknown dialect", sqlModel(""), Query{Dialect: "oracle", Table: "t"}, `unknown dialect "oracle"`},
		{"list in ISO SQL", sqlModel("feats"), Query{Dialect: ANSI, Table: "t"}, "list column"},
		{"no table", sqlModel(""), Query{Dialect: DuckDB, Table: " "}, "no table"},
	} {
		_, err := tc.m.SQL(tc.q)
		if !errors.Is(err, ErrDialect) || !errors.Is(err, transforms.ErrInvalidOption) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrDialect with %q", tc.name, err, tc.want)
		}
	}
}
