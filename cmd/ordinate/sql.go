package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/affine"
	"github.com/ordinate/ordinate/transforms/table"
)

func sqlCommand() *cli.Command {
	dialects := make([]string, len(affine.Dialects))
	for i, d := range affine.Dialects {
		dialects[i] = string(d)
	}
	return &cli.Command{
		Name:     "sql",
		Usage:    "print an affine model (bvp, pca, lda, linear ckpca or lsp) as one SQL SELECT, for engines without ordinate",
		Category: "models",
		UsageText: `ordinate sql --model M [--dialect duckdb|spark|postgres|ansi] [--table T] [--id COL] [--keep COLS] [--json]

The SELECT computes apply's coordinates emb_0 … from the model's input columns with
apply's operations in apply's order (the standardisation folded in, the constants in
the shortest decimal form that reads back as the same double), so an engine that adds
and multiplies IEEE doubles in the written order without fused multiply-adds gets
apply's bits: DuckDB and Spark do (the CI checks DuckDB for every affine stage).
--table is written as given after FROM: a table name, or a table function such as
read_parquet('x.parquet'). --id and --keep add columns, as apply passes them through;
SQL tables have no row order, so without --id the rows carry no identity. A NULL
feature gives NULL coordinates and a NaN gives NaN, where apply refuses or drops the
row. --json prints the SELECT and each coordinate's expression as one JSON object.
t-SNE, NeRV, kernel and Fisher models are refused: their rows are not an affine
function of the features (use apply).

Examples:
   ordinate bvp --in testdata/ordinal/newthyroid.csv --label label --out /tmp/thyroid-bvp.parquet --model-out /tmp/thyroid-bvp.model.parquet
   ordinate sql --model /tmp/thyroid-bvp.model.parquet --table "read_csv('testdata/ordinal/newthyroid.csv')" --keep label
   ordinate sql --model /tmp/thyroid-bvp.model.parquet --dialect spark --table thyroid --id id --json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "model", Usage: "model table written with --model-out by bvp, pca, lda, or ckpca or lsp with a linear map", Required: true},
			&cli.StringFlag{Name: "dialect", Value: string(affine.DuckDB), Usage: "SQL dialect: " + strings.Join(dialects, ", ")},
			&cli.StringFlag{Name: "table", Value: "input", Usage: "what to select FROM, written as given (a table name, or e.g. read_parquet('x.parquet'))"},
			&cli.StringFlag{Name: "id", Usage: "row identity column, selected first (default: none; SQL rows have no order to number)"},
			&cli.StringFlag{Name: "keep", Usage: "columns to select after the coordinates, comma list of names (default: none)"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON: the SELECT, and each coordinate's expression"},
		},
		Action: action(func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usagef("sql takes no arguments, got %q", c.Args().Slice())
			}
			var keep []string
			if k := strings.TrimSpace(c.String("keep")); k != "" {
				for _, name := range strings.Split(k, ",") {
					name = strings.TrimSpace(name)
					if name == "" || strings.ContainsAny(name, "*?[") {
						return usagef("--keep %q: sql takes column names, not globs (it reads no table to match them against)", c.String("keep"))
					}
					keep = append(keep, name)
				}
			}
			path := c.String("model")
			model, _, err := transforms.ReadModelFile(c.Context, path)
			if err != nil {
				return badInput(err)
			}
			m, ok := model.(*affine.Model)
			if !ok {
				h := model.Header()
				return usagef("%s: sql serves affine models (bvp, pca, lda, and ckpca or lsp with a linear map); this is a %q model of stage %s, whose rows are not an affine function of the features: use apply", path, h.Kind, h.Stage)
			}
			q := affine.Query{Dialect: affine.Dialect(c.String("dialect")), Table: c.String("table"), ID: c.String("id"), Keep: keep}
			text, err := m.SQL(q)
			if err != nil {
				return badInput(fmt.Errorf("%s: %w", path, err))
			}
			if !c.Bool("json") {
				_, err := fmt.Fprintln(c.App.Writer, text+";")
				return err
			}
			exprs, err := m.Expressions(q.Dialect)
			if err != nil {
				return badInput(err)
			}
			type column struct {
				Name       string `json:"name"`
				Expression string `json:"expression"`
			}
			out := struct {
				Dialect     string   `json:"dialect"`
				Stage       string   `json:"stage"`
				Features    []string `json:"features"`
				FeatureList string   `json:"feature_list,omitempty"`
				Columns     []column `json:"columns"`
				Select      string   `json:"select"`
			}{Dialect: string(q.Dialect), Stage: m.Stage, Features: m.Features, FeatureList: m.FeatureList, Select: text}
			for j, e := range exprs {
				out.Columns = append(out.Columns, column{table.EmbeddingPrefix + strconv.Itoa(j), e})
			}
			enc := json.NewEncoder(c.App.Writer)
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		}),
	}
}
