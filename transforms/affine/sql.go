package affine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// Dialect is an SQL dialect that Expressions and SQL write.
type Dialect string

// The dialects: DuckDB, Spark SQL, PostgreSQL and ISO SQL.
const (
	DuckDB   Dialect = "duckdb"
	Spark    Dialect = "spark"
	Postgres Dialect = "postgres"
	ANSI     Dialect = "ansi"
)

// Dialects lists the dialects, DuckDB first (the default of ordinate sql).
var Dialects = []Dialect{DuckDB, Spark, Postgres, ANSI}

// ErrDialect reports a model or query that a dialect cannot express: a
// feature list column in ISO SQL, whose arrays differ between engines, or
// an unknown dialect.
var ErrDialect = transforms.NewSentinel(transforms.ErrInvalidOption, "not expressible in this SQL dialect")

// Expressions returns, for each output coordinate j, one SQL expression of
// the model's input columns that computes it with Transform's operations
// in Transform's order:
//
//	−b_j + CAST(x_0 AS DOUBLE)·w_0j + … + CAST(x_{D−1} AS DOUBLE)·w_{D−1,j}
//
// (standardisation folded into w and b as Transform folds it), summed left
// to right as SQL's + associates. The constants are written in the
// shortest decimal form that reads back as the same double, as plain
// E-notation literals where the dialect makes them DOUBLE (DuckDB, Spark)
// and as CAST('…' AS DOUBLE PRECISION) where it makes them NUMERIC
// (PostgreSQL) or may (ISO SQL). An engine that evaluates IEEE doubles in
// the written order, without fused multiply-adds, gets apply's bits. A
// NULL feature gives a NULL coordinate and a NaN a NaN (apply refuses both
// or drops the row).
func (m *Model) Expressions(d Dialect) ([]string, error) {
	if !slices.Contains(Dialects, d) {
		return nil, fmt.Errorf("%w: unknown dialect %q (one of %s)", ErrDialect, d, dialectList())
	}
	D, dims := len(m.Features), m.Dims()
	cols := make([]string, D)
	for f := range D {
		c, err := featureRef(d, m.Features[f], m.FeatureList, f)
		if err != nil {
			return nil, err
		}
		cols[f] = "CAST(" + c + " AS " + doubleType(d) + ")"
	}
	out := make([]string, dims)
	var b strings.Builder
	for j := range dims {
		b.Reset()
		b.WriteString(literal(d, -m.b[j]))
		for f := range D {
			b.WriteString(" + ")
			b.WriteString(cols[f])
			b.WriteString(" * ")
			b.WriteString(literal(d, m.w[f*dims+j]))
		}
		out[j] = b.String()
	}
	return out, nil
}

// Query is one SELECT of a model's embedding: FROM Table (written as
// given: a table name, or a table function such as
// read_parquet('x.parquet')), with the ID column first when it is set and
// the Keep columns last, as apply writes them.
type Query struct {
	Dialect Dialect
	Table   string
	ID      string
	Keep    []string
}

// SQL returns the SELECT of q: the ID column, the coordinates as emb_0 …
// (Expressions), the Keep columns. SQL tables have no row order, so
// without an ID the rows carry no identity (apply's row numbers have no
// SQL equivalent).
func (m *Model) SQL(q Query) (string, error) {
	exprs, err := m.Expressions(q.Dialect)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(q.Table) == "" {
		return "", fmt.Errorf("%w: no table to select from", ErrDialect)
	}
	var items []string
	if q.ID != "" {
		items = append(items, ident(q.Dialect, q.ID))
	}
	for j, e := range exprs {
		items = append(items, e+" AS "+ident(q.Dialect, table.EmbeddingPrefix+strconv.Itoa(j)))
	}
	for _, k := range q.Keep {
		items = append(items, ident(q.Dialect, k))
	}
	return "SELECT\n  " + strings.Join(items, ",\n  ") + "\nFROM " + q.Table, nil
}

// featureRef is the SQL reference to feature f: its column, or element f
// of the list column.
func featureRef(d Dialect, name, list string, f int) (string, error) {
	if list == "" {
		return ident(d, name), nil
	}
	switch d {
	case Spark:
		return ident(d, list) + "[" + strconv.Itoa(f) + "]", nil // 0-based
	case DuckDB, Postgres:
		return ident(d, list) + "[" + strconv.Itoa(f+1) + "]", nil // 1-based
	}
	return "", fmt.Errorf("%w: the model reads its features from the list column %q, and ISO SQL has no list type that engines share (use --dialect duckdb, spark or postgres)", ErrDialect, list)
}

// ident quotes an identifier: `name` in Spark SQL, "name" elsewhere, the
// quote character doubled inside.
func ident(d Dialect, name string) string {
	q := `"`
	if d == Spark {
		q = "`"
	}
	return q + strings.ReplaceAll(name, q, q+q) + q
}

// doubleType is the dialect's name of an IEEE double.
func doubleType(d Dialect) string {
	if d == DuckDB || d == Spark {
		return "DOUBLE"
	}
	return "DOUBLE PRECISION"
}

// literal writes v in the shortest decimal form that reads back as v: an
// E-notation literal where the dialect reads it as a DOUBLE, else a cast
// of the string.
func literal(d Dialect, v float64) string {
	s := strconv.FormatFloat(v, 'e', -1, 64)
	if d == DuckDB || d == Spark {
		return s
	}
	return "CAST('" + s + "' AS DOUBLE PRECISION)"
}

func dialectList() string {
	s := make([]string, len(Dialects))
	for i, d := range Dialects {
		s[i] = string(d)
	}
	return strings.Join(s, ", ")
}
