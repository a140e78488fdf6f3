package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
)

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "print a table's schema, row count, row groups and ordinate provenance",
		ArgsUsage: "FILE",
		UsageText: `ordinate inspect [--json] [--checksum] FILE

Reads only the footer of a Parquet file (no data), or the schema and batches of an
Arrow IPC file, or the header of a CSV file. --json prints the same as one JSON
object (for scripts); --checksum also reads the data and adds the sum of every
float64 column named emb_*, which another engine can recompute to check it read
the same numbers.

Examples:
   ordinate inspect testdata/similarity/voting.parquet
   ordinate inspect --json --checksum testdata/similarity/voting.parquet`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON instead of text"},
			&cli.BoolFlag{Name: "checksum", Usage: "with --json: add the sums of the emb_* columns (reads the data)"},
		},
		Action: action(func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("inspect takes exactly one FILE, got %d arguments", c.NArg())
			}
			info, err := arrowio.Inspect(c.Context, c.Args().First())
			if err != nil {
				return badInput(err)
			}
			if !c.Bool("json") {
				return info.WriteText(c.App.Writer)
			}
			out, err := inspectJSON(c.Context, info, c.Bool("checksum"))
			if err != nil {
				return badInput(err)
			}
			enc := json.NewEncoder(c.App.Writer)
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		}),
	}
}

type inspectColumn struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
}

type inspectOut struct {
	Path       string              `json:"path"`
	Format     string              `json:"format"`
	Rows       int64               `json:"rows"`
	Columns    []inspectColumn     `json:"columns"`
	Metadata   map[string]string   `json:"metadata,omitempty"`
	Provenance *arrowio.Provenance `json:"provenance,omitempty"`
	Checksums  map[string]float64  `json:"checksums,omitempty"`
}

func inspectJSON(ctx context.Context, info *arrowio.FileInfo, checksum bool) (*inspectOut, error) {
	out := &inspectOut{Path: info.Path, Format: info.Format.String(), Rows: info.Rows, Metadata: info.Metadata, Provenance: info.Provenance}
	for _, f := range info.Schema.Fields() {
		out.Columns = append(out.Columns, inspectColumn{f.Name, f.Type.String(), f.Nullable})
	}
	if !checksum {
		return out, nil
	}
	out.Checksums = map[string]float64{}
	r, err := arrowio.Open(ctx, info.Path)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	for r.Next() {
		rec := r.RecordBatch()
		for c, f := range rec.Schema().Fields() {
			col, ok := rec.Column(c).(*array.Float64)
			if !ok || !strings.HasPrefix(f.Name, "emb_") {
				continue
			}
			s := out.Checksums[f.Name]
			for i, v := range col.Float64Values() {
				if col.IsValid(i) {
					s += v
				}
			}
			out.Checksums[f.Name] = s
		}
	}
	return out, r.Err()
}
